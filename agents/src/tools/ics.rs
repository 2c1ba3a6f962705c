//! A minimal iCalendar (RFC 5545) reader for the `calendar` tool: the
//! VEVENTs' DTSTART, DTEND (or DURATION in days, hours, minutes), SUMMARY
//! and LOCATION, with all-day dates, UTC times, TZID times and floating
//! times (read as UTC). Recurrence rules are not expanded: such an event
//! says it recurs and counts at its first date. Pure.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, TimeZone, Utc};
use chrono_tz::Tz;

/// One event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub summary: String,
    pub location: Option<String>,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub all_day: bool,
    /// It has an RRULE (not expanded).
    pub recurring: bool,
}

/// The events of `text`; events whose start cannot be read are skipped and
/// counted in the second value.
pub fn parse(text: &str) -> (Vec<Event>, usize) {
    let mut events = Vec::new();
    let mut skipped = 0;
    let mut current: Option<Vec<(String, String, String)>> = None;
    for line in unfold(text) {
        let Some((head, value)) = line.split_once(':') else {
            continue;
        };
        let (name, params) = match head.split_once(';') {
            Some((name, params)) => (name, params),
            None => (head, ""),
        };
        let name = name.to_ascii_uppercase();
        match (name.as_str(), value.trim()) {
            ("BEGIN", "VEVENT") => current = Some(Vec::new()),
            ("END", "VEVENT") => {
                if let Some(props) = current.take() {
                    match event(&props) {
                        Some(event) => events.push(event),
                        None => skipped += 1,
                    }
                }
            }
            _ => {
                if let Some(props) = current.as_mut() {
                    props.push((name, params.to_owned(), value.to_owned()));
                }
            }
        }
    }
    (events, skipped)
}

/// Joins folded lines (a line starting with a space or tab continues the
/// previous one).
fn unfold(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        match (raw.strip_prefix([' ', '\t']), lines.last_mut()) {
            (Some(rest), Some(last)) => last.push_str(rest),
            _ => lines.push(raw.to_owned()),
        }
    }
    lines
}

fn event(props: &[(String, String, String)]) -> Option<Event> {
    let find = |wanted: &str| props.iter().find(|(name, _, _)| name == wanted);
    let (_, start_params, start_value) = find("DTSTART")?;
    let (start, all_day) = instant(start_params, start_value)?;
    let end = match (find("DTEND"), find("DURATION")) {
        (Some((_, params, value)), _) => instant(params, value).map(|(end, _)| end),
        (None, Some((_, _, value))) => duration(value).map(|d| start + d),
        (None, None) if all_day => Some(start + TimeDelta::days(1)),
        (None, None) => Some(start),
    }
    .filter(|end| *end >= start)
    .unwrap_or(start);
    Some(Event {
        summary: find("SUMMARY")
            .map(|(_, _, v)| unescape(v))
            .unwrap_or_default(),
        location: find("LOCATION")
            .map(|(_, _, v)| unescape(v))
            .filter(|l| !l.is_empty()),
        start,
        end,
        all_day,
        recurring: find("RRULE").is_some(),
    })
}

/// A DTSTART/DTEND value: a date (all day, as UTC midnight), a UTC time
/// (`…Z`), a time in the `TZID` parameter's zone, or a floating time.
fn instant(params: &str, value: &str) -> Option<(DateTime<Utc>, bool)> {
    let value = value.trim();
    let param = |key: &str| {
        params.split(';').find_map(|p| {
            let (k, v) = p.split_once('=')?;
            k.eq_ignore_ascii_case(key).then(|| v.trim_matches('"'))
        })
    };
    if param("VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE")) || value.len() == 8 {
        let date = NaiveDate::parse_from_str(value, "%Y%m%d").ok()?;
        return Some((date.and_hms_opt(0, 0, 0)?.and_utc(), true));
    }
    if let Some(utc) = value.strip_suffix('Z') {
        let naive = NaiveDateTime::parse_from_str(utc, "%Y%m%dT%H%M%S").ok()?;
        return Some((naive.and_utc(), false));
    }
    let naive = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S").ok()?;
    match param("TZID") {
        Some(zone) => {
            let zone: Tz = zone.parse().ok()?;
            // A time skipped by a clock change is taken as the later instant.
            let local = zone.from_local_datetime(&naive);
            let at = local.earliest().or_else(|| local.latest())?;
            Some((at.with_timezone(&Utc), false))
        }
        None => Some((naive.and_utc(), false)),
    }
}

/// An RFC 5545 duration such as `PT1H30M` or `P1D` (weeks, days, hours,
/// minutes, seconds).
fn duration(value: &str) -> Option<TimeDelta> {
    let rest = value.trim().strip_prefix('+').unwrap_or(value.trim());
    let rest = rest.strip_prefix('P')?;
    let mut total = TimeDelta::zero();
    let mut number = String::new();
    for c in rest.chars() {
        match c {
            '0'..='9' => number.push(c),
            'T' => {}
            unit => {
                let n: i64 = number.parse().ok()?;
                number.clear();
                total += match unit {
                    'W' => TimeDelta::weeks(n),
                    'D' => TimeDelta::days(n),
                    'H' => TimeDelta::hours(n),
                    'M' => TimeDelta::minutes(n),
                    'S' => TimeDelta::seconds(n),
                    _ => return None,
                };
            }
        }
    }
    Some(total)
}

/// A TEXT value with its escapes (`\,` `\;` `\n` `\\`) undone.
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n' | 'N') => out.push('\n'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::parse;

    const ICS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n\
        BEGIN:VEVENT\r\nDTSTART;TZID=Europe/Paris:20261207T100000\r\n\
        DTEND;TZID=Europe/Paris:20261207T113000\r\nSUMMARY:Comité\\, budget\r\n \
        2027\r\nLOCATION:Salle B\r\nEND:VEVENT\r\n\
        BEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20261208\r\nSUMMARY:Congé\r\nEND:VEVENT\r\n\
        BEGIN:VEVENT\r\nDTSTART:20261209T080000Z\r\nDURATION:PT45M\r\nRRULE:FREQ=WEEKLY\r\n\
        SUMMARY:Point hebdo\r\nEND:VEVENT\r\n\
        BEGIN:VEVENT\r\nDTSTART:garbage\r\nSUMMARY:Broken\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

    #[test]
    fn events_read_in_utc_with_zones_all_day_dates_durations_and_folded_lines() {
        let (events, skipped) = parse(ICS);
        assert_eq!(skipped, 1);
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].summary, "Comité, budget2027");
        assert_eq!(events[0].location.as_deref(), Some("Salle B"));
        assert_eq!(
            events[0].start,
            Utc.with_ymd_and_hms(2026, 12, 7, 9, 0, 0).unwrap()
        );
        assert_eq!(
            events[0].end,
            Utc.with_ymd_and_hms(2026, 12, 7, 10, 30, 0).unwrap()
        );
        assert!(events[1].all_day);
        assert_eq!(
            events[1].end,
            Utc.with_ymd_and_hms(2026, 12, 9, 0, 0, 0).unwrap()
        );
        assert!(events[2].recurring);
        assert_eq!(
            events[2].end,
            Utc.with_ymd_and_hms(2026, 12, 9, 8, 45, 0).unwrap()
        );
    }
}
