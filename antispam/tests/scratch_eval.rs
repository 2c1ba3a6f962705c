#![allow(clippy::unwrap_used, clippy::print_stdout)]
use ulias_antispam::eval::{rules_only, Setup, Poster};
fn lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(format!("{}/../fixtures/spam/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap().lines().filter(|l| !l.trim().is_empty()).map(str::to_owned).collect()
}
#[test]
fn scratch() {
    let half = std::env::var("HALF").unwrap_or_default();
    let (s, h) = (lines(&format!("crypto-spam{half}.txt")), lines(&format!("crypto-ham{half}.txt")));
    for poster in [Poster::Newcomer, Poster::Member] {
        let setup = Setup { official: vec!["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".into()], poster };
        let r = rules_only(&s, &h, &setup).unwrap();
        println!("{poster:?}: recall {}/{} fp {}/{}", r.caught, r.spam, r.false_positives, r.ham);
        for (t, rules) in &r.missed { println!("  MISS [{}] {t}", rules.join(",")); }
        for (t, rules) in &r.false_positive_details { println!("  FP [{}] {t}", rules.join(",")); }
        for (rule, c) in &r.rules { println!("  {rule}: spam {} fp {}", c.spam, c.false_positives); }
    }
}
fn shared(name: &str) -> Vec<String> {
    std::fs::read_to_string(format!("/work/shared/corpus/tg-spam/{name}")).unwrap().lines().filter(|l| !l.trim().is_empty()).map(str::to_owned).collect()
}
#[test]
fn scratch_shared() {
    use ulias_antispam::eval::{cross_validate, train_and_test};
    let (s, h) = (shared("spam-samples.txt"), shared("ham-samples.txt"));
    let setup = Setup::default();
    let r = cross_validate(&s, &h, 5, 42, &setup).unwrap();
    println!("CV: recall {}/{} fp {}/{}", r.caught, r.spam, r.false_positives, r.ham);
    for (t, rules) in &r.false_positive_details { println!("  FP [{}] {}", rules.join(","), t.chars().take(100).collect::<String>()); }
    let r = rules_only(&s, &h, &setup).unwrap();
    println!("rules only: recall {}/{} fp {}/{}", r.caught, r.spam, r.false_positives, r.ham);
    for (t, rules) in &r.false_positive_details { println!("  FP [{}] {}", rules.join(","), t.chars().take(100).collect::<String>()); }
    let (s1, s2) = s.split_at(91); let (h1, h2) = h.split_at(219);
    let a = train_and_test(s2, h2, s1, h1, &setup).unwrap();
    let b = train_and_test(s1, h1, s2, h2, &setup).unwrap();
    println!("half A->B recall {}/{} fp {}/{}; B->A recall {}/{} fp {}/{}", a.caught, a.spam, a.false_positives, a.ham, b.caught, b.spam, b.false_positives, b.ham);
    let fs = lines("crypto-spam.txt"); let fh = lines("crypto-ham.txt");
    let fs2 = lines("crypto-spam-holdout.txt"); let fh2 = lines("crypto-ham-holdout.txt");
    let allh: Vec<String> = fh.iter().chain(&fh2).cloned().collect();
    let alls: Vec<String> = fs.iter().chain(&fs2).cloned().collect();
    let setup = Setup { official: vec!["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".into()], poster: Poster::Newcomer };
    let r = train_and_test(&s, &h, &alls, &allh, &setup).unwrap();
    println!("trained on shared, our fixtures: recall {}/{} fp {}/{}", r.caught, r.spam, r.false_positives, r.ham);
    for (t, rules) in &r.false_positive_details { println!("  FP [{}] {t}", rules.join(",")); }
}
