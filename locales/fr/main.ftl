# Textes du bot, en français (langue par défaut).

refusal-stranger = Bonjour ! Ce bot est réservé à l'équipe Ulias. Je ne peux pas vous répondre, désolé.
not-allowed = Vous n'avez pas le droit de faire cela.
unknown-command = Commande inconnue. /help donne la liste.
error-generic = Quelque chose a échoué : { $error }

objective-created = Objectif #{ $id } créé : { $title } (priorité { $priority }). Je vous tiens au courant ici.
objective-question = Je ne suis pas sûr de comprendre « { $message } ». Vous voulez dire :
objective-corrected = Objectif #{ $id } corrigé : { $title }
correction-nothing = Je n'ai pas d'objectif récent à corriger.
interpreter-failed = Je n'ai pas pu interpréter ce message : { $error }

progress-line = Objectif #{ $id } — { $title }
progress-count = { $done }/{ $total } ✓
progress-running = { $agents } en cours
progress-planning = planification…
progress-completed = terminé ✓
progress-failed = échoué ✗
progress-cancelled = arrêté
progress-blocked = en attente de votre décision

validation-header = Validation #{ $id } — { $kind }{ $step }
validation-step = { " " }({ $step })
validation-post = Publication :
validation-thread = Fil de { $count } messages :
validation-album = Album de { $count } images :
validation-site = Site à publier : { $url }
validation-pinned = Message épinglé :
validation-poll = Sondage : { $question }
validation-reply-to = En réponse au post X { $id }
validation-images = Images : { $assets }
validation-profile = Profil X :
    nom : { $name }
    bio : { $bio }
    photo : { $picture } · bannière : { $banner }
    Le label « automatisé » se règle ensuite à la main (X n'a pas d'API pour cela).
validation-dossier = Dossier à traiter à la main :
validation-other = Contenu :
button-approve = ✅ Approuver
button-reject = ❌ Rejeter
validation-approved = ✅ Approuvé par { $who } à { $at }
validation-rejected = ❌ Rejeté par { $who } à { $at } : { $reason }
validation-already = Déjà traité.
validation-reason-prompt = Pourquoi rejeter la validation #{ $id } ? Répondez à ce message.
validation-reason-stored = Rejet enregistré ; l'étape repart avec votre raison.

decision-header = Décision #{ $id } ({ $urgency })
decision-context = Contexte : { $context }
decision-timeout = Sans réponse avant { $at }, je choisirai « { $default } ».
decision-recommended = ⭐ { $option }
decision-answered = → « { $option } », choisi par { $who } à { $at }
decision-timed-out = ⏱ Décision #{ $id } : pas de réponse à temps, « { $option } » appliqué.
decision-already = Cette décision est déjà prise.
urgency-low = basse
urgency-normal = normale
urgency-high = haute
urgency-critical = critique

alert-info = ℹ️ { $title }
    { $body }
alert-warning = ⚠️ { $title }
    { $body }
alert-critical = 🚨 { $title }
    { $body }

alert-run-budget-title = { $agent } : { $percent } % de son budget dépensé
alert-run-budget-body = { $spent } sur { $budget } dépensés par cette exécution
alert-cloud-month-title = Dépenses cloud au-delà de { $threshold } ce mois-ci
alert-cloud-month-body = { $spent } dépensés sur le plafond mensuel de { $cap }
alert-objective-finished-title = Objectif #{ $id } { $status ->
        [completed] terminé
        [failed] en échec
        [cancelled] annulé
       *[other] { $status }
    } : { $title }
alert-objective-finished-body = { $completed }/{ $total } tâches terminées
alert-proposal-automatic-title = { $proposer } a lancé l'objectif #{ $id } de lui-même
alert-proposal-automatic-body = { $title } (vous avez accepté { $rate } % de ses propositions)
alert-operation-stopped-title = Opération #{ $operation } arrêtée
alert-operation-stopped-body = Arrêtée à « { $step } » (no-go) : { $cancelled } étape(s) annulée(s). { $reason }
alert-buyback-by-hand-title = L'étape « { $step } » a besoin de vous
alert-buyback-by-hand-body = Le rachat n'est pas encore construit dans Ulias : lancez-le à la main.
alert-step-refused-title = Tâche #{ $id } ({ $title }) en échec
alert-step-refused-body = { $problem }
alert-validation-waiting-title = Validation #{ $id } en attente depuis { $hours } h
alert-validation-waiting-body = Un contenu « { $kind } » attend Approuver / Rejeter
alert-task-failed-title = Tâche #{ $id } ({ $agent }) en échec
alert-task-failed-body = { $report }
alert-from-agent-title = { $agent } : { $title }
alert-from-agent-body = { $body }
alert-x-mention-title = Une mention de @{ $account } contient des instructions : rien n'a été fait
alert-x-mention-body = { $text }

log-batch-header = Journal public
log-line = • { $agent } : { $summary } — { $cost }
log-total = Total : { $total }

status-title = État
status-objectives = Objectifs en cours : { $count }
status-tasks = Tâches en file : { $queued }, en cours : { $running }, en attente : { $blocked }
status-slots = GPU occupés : { $busy }/{ $total } créneaux
status-money = Dépensé aujourd'hui : { $today } — ce mois : { $month }
status-paused = En pause : { $count } objectif(s)
objectives-title = Objectifs
objectives-empty = Aucun objectif en cours.
objectives-line = #{ $id } { $title } — { $status }
decisions-title = Décisions en attente
decisions-empty = Aucune décision en attente.
decisions-line = #{ $id } { $question }
validations-title = Validations en attente
validations-empty = Aucune validation en attente.
validations-line = #{ $id } { $kind } — { $step }
paused = Tout est en pause : { $count } objectif(s). /resume pour reprendre.
resumed = C'est reparti : { $count } objectif(s).
stopped = Objectif #{ $id } arrêté ({ $tasks } tâche(s) annulée(s)).
stop-usage = Usage : /stop <numéro d'objectif>, ou /stop op<numéro d'opération>
log-usage = Usage : /log <numéro d'objectif>
log-title = Journal de l'objectif #{ $id }
log-empty = Rien dans le journal de l'objectif #{ $id }.
budget-title = Budget
budget-today = Aujourd'hui : { $amount }
budget-month = Ce mois : { $amount }
budget-cloud = Cloud ce mois : { $spent } sur { $cap }
not-found = #{ $id } introuvable.
help-title = Commandes :

cmd-status = l'état : objectifs, tâches, GPU, dépenses
cmd-objectives = les objectifs en cours
cmd-decisions = les décisions en attente
cmd-validations = les validations en attente
cmd-pause = tout mettre en pause, ou une opération : /pause <op>
cmd-resume = tout reprendre, ou une opération : /resume <op>
cmd-stop = arrêter un objectif : /stop <id>, ou une opération : /stop op<id>
cmd-budget = les dépenses et le plafond cloud
cmd-log = le journal d'un objectif : /log <id>
cmd-report = le rapport du jour
cmd-help = cette aide

group-official-address = ⚠️ Attention aux arnaques : la seule adresse officielle est
    { $addresses }
    Personne de l'équipe ne vous écrira en privé.
group-captcha = Bienvenue { $name } ! Pour écrire ici, appuyez sur le résultat de ce calcul dans les { $seconds } secondes : { $a } + { $b } = ?
group-captcha-not-yours = Cette question est pour quelqu'un d'autre.
group-rights-missing = 🛡 { $group } : je ne peux pas { $missing } ici. Faites de moi un administrateur avec ces droits.
right-delete = supprimer des messages
right-restrict = restreindre des membres
right-pin = épingler des messages
right-post = publier des messages
ceo-not-started = Je ne peux pas vous écrire sur Telegram : ouvrez @{ $bot } et appuyez sur Démarrer.
group-alert = 🛡 { $group } : { $text }
group-ban-report = 🛡 { $group } : utilisateur { $user } banni pour ce message :
    { $text }
button-unban = ↩️ Débannir
group-unbanned = Débanni ; le message est appris comme légitime.
group-shortlist-title = Modérateurs possibles pour { $group } cette semaine :
group-shortlist-line = • { $user } : { $clean } messages propres en { $weeks } semaines, jamais modéré
publication-unknown = ⚠️ Publication #{ $id } ({ $target }) interrompue pendant l'envoi : elle est peut-être partie, peut-être pas. Vérifiez, puis renvoyez-la seulement si elle manque.
publication-failed = ❌ Publication #{ $id } ({ $target }) non envoyée : { $error }
publication-group-photo-not-set = 🖼️ La publication #{ $id } ({ $target }) est partie, mais Telegram a refusé de mettre la photo de groupe du kit : mettez-la à la main (ou donnez-moi le droit de modifier les infos du groupe).
publication-not-pinned = 📌 La publication #{ $id } ({ $target }) est partie mais Telegram a refusé de l'épingler : épinglez-la à la main (et donnez-moi le droit d'épingler).
publication-x-automated-label = 🤖 Publication #{ $id } : le profil X est à jour. X n'a pas d'API pour le label « automatisé » : activez-le à la main (Paramètres → Votre compte → Informations du compte → Automatisation) avec le compte gestionnaire.
x-refresh-failed = 🔑 X a refusé de renouveler le jeton de @{ $account } ({ $reason }). Ses publications sont en pause — aucune n'est perdue : reconnectez-le avec `ulias x connect { $account } --user-id …` et elles partiront.
vote-tie = 🗳 Le vote #{ $id } ({ $question }) est à égalité, sur X aussi : { $totals }. Choisissez le gagnant :
vote-decided = 🗳 Vote #{ $id } : { $winner }, choisi par { $who }.
vote-decided-already = Ce vote est déjà tranché.
op-vote = Vote : { $winner } ({ $by }) — { $totals }
op-vote-tied = Vote : égalité ({ $totals }), en attente de l'équipe
vote-by-votes = le plus de voix
vote-by-x_votes = égalité départagée par les voix X
vote-by-team = choisi par l'équipe
button-resend = 🔁 Renvoyer
publication-resent = Elle repart.

report-title = 📊 Résumé Ulias — { $date }
report-objectives = OBJECTIFS
report-completed = ✅ { $count } complétés (dont { $auto } auto-générés)
report-in-progress = 🔄 { $count } en cours
report-failed = ❌ { $count } échoués
report-waiting = ⏸️ { $count } en attente de décision
report-teams = ÉQUIPES
report-team-line = { $team } : { $done } tâche(s) réussie(s), { $failed } échouée(s)
report-metrics = MÉTRIQUES
report-autonomy = Taux d'autonomie : { $rate } %
report-confidence = Confiance moyenne : { $confidence }
report-interventions = Interventions CEO : { $count } (objectif : < 5/jour)
report-tokens = Tokens consommés : { $tokens } (coût { $cost }, équivalent cloud { $cloud })
report-decisions = DÉCISIONS EN ATTENTE
report-decision-line = → #{ $id } : « { $question } »
report-none = (rien)
report-chart = Coût par jour (haut) et objectifs complétés (bas), 14 derniers jours
team-engineering = Ingénierie
team-ops = Ops
team-research = Recherche
team-media = Média
team-security = Sécurité
team-transversal = Transversal
team-ceo-intel = Intelligence CEO
team-takeover = Reprise de token
team-direction = Direction
cmd-validation = valider ou non les publications d'une opération : /validation <id> on|off
validation-usage = Usage : /validation <numéro d'opération> on|off
validation-toggled = Validation des publications de l'opération #{ $id } : { $state }
validation-state-on = activée (chaque publication attend l'équipe)
validation-state-off = désactivée (publication directe, toujours journalisée)

# The CEO's loop: answers, proposals, profile, figures.
answer-completed = ✅ Objectif #{ $id } terminé : { $title }
answer-failed = ❌ Objectif #{ $id } échoué : { $title }
answer-cancelled = ⏹ Objectif #{ $id } arrêté : { $title }
answer-reason = Pourquoi : { $reason }
answer-reason-stopped = Pourquoi : arrêté à votre demande.
answer-nothing = Les agents n'ont rien rapporté de plus.
answer-follow-up = Reste à faire : { $title }
button-details = Détails
button-redo = Refaire
button-follow-up = Lancer la suite
details-title = Objectif #{ $id } — { $title } : les tâches
details-line = #{ $id } { $agent } — { $title } : { $status } · confiance { $confidence } · { $cost } · { $tokens } tokens
details-total = Total : { $tasks } tâche(s), { $cost }
proposal-header = 💡 Proposition #{ $id } ({ $proposer }) : { $title }
proposal-accepted = → acceptée, l'objectif est lancé.
proposal-declined = → refusée.
proposal-later = → à revoir dans { $hours } h.
button-accept = Accepter
button-decline = Refuser
button-later = Plus tard
profile-empty = Je ne sais encore rien de vous : le profil se remplit au fil des messages.
profile-title = Ce que je sais de vous (confiance) :
profile-line = #{ $id } [{ $kind }] { $key } → { $value } ({ $percent } %)
profile-forgotten = Entrée #{ $id } oubliée.
profile-kind-vocabulary = vocabulaire
profile-kind-preference = préférence
profile-kind-pattern = habitude de demande
profile-kind-habit = rythme
profile-kind-style = style
profile-kind-priority = priorité
button-forget = Oublier #{ $id } ({ $key })
cmd-stats = Les chiffres de l'organisation (/stats help : définitions)
cmd-profile = Ce que l'organisation sait de vous
stats-title = 📊 Chiffres (jour · semaine · mois)
stats-autonomy = Taux d'autonomie : { $values }
stats-generated = Objectifs auto-générés / jour : { $values }
stats-interventions = Interventions CEO / jour : { $values }
stats-caught = Incidents détectés avant impact : { $values }
stats-accuracy = Interprétation correcte : { $values }
stats-anticipated = Besoins anticipés / semaine : { $values }
stats-proposer = { $proposer } { $accepted }/{ $answered } ({ $rate })
stats-proposals = Propositions acceptées : { $records }
stats-more = /stats help : comment chaque chiffre est calculé.
stats-percent = { $value } %
stats-help-title = Comment les chiffres sont calculés (sur la fenêtre : dernier jour, 7 jours, 30 jours) :
stats-help-autonomy = Taux d'autonomie : part des tâches d'agents terminées sans que vous ayez eu à trancher une décision à leur sujet, parmi les tâches finies (réussies ou échouées).
stats-help-generated = Objectifs auto-générés / jour : objectifs créés par l'organisation elle-même (Strategist, Anticipator, incidents, planning), divisés par le nombre de jours.
stats-help-interventions = Interventions CEO / jour : décisions auxquelles vous avez répondu (pas celles tranchées par défaut) plus interprétations que vous avez corrigées, par jour.
stats-help-caught = Incidents détectés avant impact : alertes levées par les vérifications (un rapport de santé dégradé ou en panne) parmi ces alertes et les tâches échouées pour de bon.
stats-help-accuracy = Interprétation correcte : part de vos messages lus par l'Interpreter que vous n'avez pas corrigés.
stats-help-anticipated = Besoins anticipés / semaine : propositions de l'Anticipator devenues objectifs (acceptées ou lancées seules), ramenées à 7 jours.
stats-help-proposals = Propositions acceptées : par agent, acceptées sur répondues (les « plus tard » attendent).
weekly-title = 📅 La semaine de l'organisation
weekly-autonomy = Taux d'autonomie : { $value }
weekly-generated = Objectifs auto-générés / jour : { $value }
weekly-interventions = Interventions CEO / jour : { $value }
weekly-caught = Incidents détectés avant impact : { $value }
weekly-accuracy = Interprétation correcte : { $value }
weekly-anticipated = Besoins anticipés : { $value }
weekly-chart = Chaque jour : taux d'autonomie (en haut), vos interventions (en bas).
forwarded-ask = Vous m'avez transféré un message : je ne le prends pas comme une consigne. Dites-moi ce que je dois en faire (par exemple en y répondant).
publication-on-its-way = Elle est déjà en cours d'envoi.
publication-gone-already = Elle est déjà partie.
groups-unprotected = ⚠️ Les groupes ne sont pas protégés : l'anti-spam n'a pas pu se charger ({ $error }). J'essaie à nouveau.
groups-protected = 🛡 Les groupes sont de nouveau protégés.

# Decisions, by kind and option
decision-doubt = { $agent } n'est sûr qu'à { $confidence } % de son résultat pour « { $title } ». L'accepter ?
decision-escalation = Le Director n'a pas su planifier « { $title } ». La replanifier, ou l'abandonner ?
decision-confirmation = Un agent veut lancer { $tool } avec { $arguments }. C'est destructif : lancer exactement ceci ?
decision-operation-start = Pré-rapport prêt pour { $name } { $ticker } ({ $chain } { $address }). Lancer la reprise ?
decision-operation-stop = Arrêter définitivement l'opération #{ $operation } { $name } ? Ses étapes ouvertes sont annulées et ses validations en attente retirées.
decision-option-accept = Accepter le résultat
decision-option-rerun = Relancer
decision-option-cancel = Annuler la tâche
decision-option-replan = Replanifier
decision-option-drop = Abandonner
decision-option-confirm = Lancer
decision-option-refuse = Ne pas lancer
decision-option-start = Démarrer
decision-option-stop = L'arrêter
decision-option-keep = La poursuivre

# Operations
cmd-takeover = reprendre un token : /takeover <chaîne> <adresse> [nom]
cmd-prereport = pré-rapport seul : /prereport <chaîne> <adresse>
cmd-ops = opérations
cmd-op = une opération : /op <id>
takeover-usage = Usage : /takeover <chaîne> <adresse du contrat> [nom], par ex. /takeover base 0x… PEP2
prereport-usage = Usage : /prereport <chaîne> <adresse du contrat>
takeover-chain-unknown = Je ne connais pas la chaîne « { $chain } ». Connues : { $chains }.
takeover-chain-unsupported = La chaîne { $chain } n'est pas encore prise en charge.
takeover-address-invalid = « { $address } » n'est pas une adresse de contrat (0x suivi de 40 caractères hexadécimaux).
takeover-taken = Ce contrat est déjà dans l'opération #{ $id } { $name } ({ $status }). Voir /op { $id }.
takeover-prereport-queued = 🔎 Pré-rapport #{ $objective } sur { $name } ({ $chain } { $address }) en cours. Le rapport arrive ici, puis Démarrer / Abandonner.
prereport-queued = 🔎 Pré-rapport #{ $objective } sur { $chain } { $address } en cours ; le rapport arrive ici.
operation-started = 🚀 Opération #{ $id } { $name } démarrée, J0 { $j0 } : { $steps } étapes planifiées. /op { $id }
operation-stopped = ⏹ Opération #{ $id } { $name } arrêtée.
ops-title = Opérations
ops-empty = Aucune opération. Lancez-en une avec /takeover <chaîne> <adresse> [nom].
ops-line = #{ $id } { $name } — { $status }, J+{ $day } · suite : { $next } · { $validations } validation(s) en attente · { $spent } sur { $cap } $
ops-next-none = rien de prévu
op-usage = Usage : /op <numéro d'opération>
op-unknown = Aucune opération #{ $id }.
op-none = aucun
op-header = Opération #{ $id } { $name } { $ticker } — { $status }, J0 { $j0 }, J+{ $day }
op-resources = Chaîne { $chain } · adresses officielles : { $addresses } · groupes : { $groups } · X : { $accounts }
op-step = { $mark } { $due } { $title } ({ $status })
op-more = … et { $count } étapes de plus.
op-paused = ⏸ Opération #{ $id } { $name } en pause : aucune nouvelle étape ne démarre. /resume { $id }
op-resumed = ▶ L'opération #{ $id } { $name } reprend.
op-not-now = L'opération #{ $id } est { $status } : pas possible maintenant.
op-stop-asked = Arrêter l'opération #{ $id } demande votre confirmation : voir la décision #{ $decision }.
bind-usage = Usage, dans le groupe de la communauté : /bind <numéro d'opération>
bind-done = Ce groupe appartient maintenant à l'opération #{ $id } { $name } : ses adresses officielles et sa FAQ s'appliquent ici.
bind-taken = Ce groupe appartient déjà à l'opération #{ $id }, toujours en cours.
group-answer-held =
    ⚠️ Une réponse à une question dans { $group } a été retenue, pas envoyée ({ $problems }).
    Question : { $question }
    Réponse : { $answer }
validation-to-group = → groupe Telegram { $group } ({ $chat })
validation-to-no-group = ⚠️ Nulle part pour l'instant : l'opération #{ $operation } n'a pas de groupe (/bind { $operation } dans le groupe).
validation-to-x = → X @{ $account }
validation-to-no-x = ⚠️ Nulle part pour l'instant : aucun compte X pour l'opération #{ $operation } (ulias x connect --operation { $operation }).
validation-to-site = → le site de l'opération
validation-to-manual = → à la main (rien n'est envoyé)
takeover-confirm = Reprendre { $name } ({ $chain } { $address }) ? Je lance d'abord le pré-rapport : rien ne démarre sans votre Démarrer.
takeover-run = Lancer le pré-rapport
takeover-not = Non
takeover-dropped = Compris : pas de reprise.
decision-validation-off = { $asked_by } demande de publier les sorties de l'opération #{ $operation } { $name } sans validation de l'équipe. L'autoriser ?
validation-off-asked = Couper la validation de l'opération #{ $id } demande le CEO : je lui ai demandé (décision #{ $decision }).
validation-changed-by = { $who } a remis la validation par l'équipe des sorties de l'opération #{ $id }.
escalation-words = Les mots du CEO : { $words }
escalation-replanned = 🔁 L'objectif #{ $id } ({ $title }) repart chez le Director avec vos mots.
ntfy-decision-title = Décision #{ $id }
ntfy-outcome-title = Décision #{ $id } prise
ntfy-outcome-answered = « { $option } », choisi par { $who }.
ntfy-outcome-timed-out = Pas de réponse à temps : « { $option } » appliqué.
ntfy-outcome-cancelled = Plus nécessaire : rien à choisir.
ntfy-more-in-chat = … la suite est dans le chat Telegram.
validation-unreadable = ⚠️ Cette sortie ne se lit pas comme une publication ({ $error }) : rejetez-la.
decision-incident = Incident n° { $incident } : { $service } est en panne. { $summary } Proposé : { $actions }. L'agent d'incident s'en charge ?
decision-option-act = Oui, fais-le
decision-option-wait = Attendre pour l'instant
alert-incident-opened-title = 🔴 Incident n° { $incident } : { $service } est en panne
alert-incident-opened-body = { $detail } L'agent d'incident s'en occupe.
alert-incident-resolved-title = 🟢 Incident n° { $incident } clos : { $service } répond de nouveau
alert-incident-resolved-body = Panne de { $minutes } min.
# Utilitaires (le Builder) : un utilitaire abandonné après trois échecs ; une commande publiée ; /price.
alert-utility-skipped-title = Opération n° { $operation } : utilitaire abandonné après { $attempts } essais ratés
alert-utility-skipped-body = La tâche n° { $task } a essayé { $templates }. Dernière erreur : { $error }
utility-released-command = 🆕 Nouveau dans ce groupe : { $command } — { $description }
utility-price-alerts = Alertes de prix pour { $address } ({ $chain }) : { $thresholds }. Prix DexScreener.
utility-price-alert-above = 📈 { $ticker } passe au-dessus de { $threshold } $ : { $price } $ maintenant.
utility-price-alert-below = 📉 { $ticker } passe sous { $threshold } $ : { $price } $ maintenant.
