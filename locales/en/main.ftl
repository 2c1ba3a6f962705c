# The bot's texts, in English.

refusal-stranger = Hello! This bot is for the Ulias team only. I can't answer you, sorry.
not-allowed = You are not allowed to do that.
unknown-command = Unknown command. /help lists them.
error-generic = Something failed: { $error }

objective-created = Objective #{ $id } created: { $title } (priority { $priority }). I'll keep you posted here.
objective-question = I'm not sure I understand "{ $message }". Do you mean:
objective-corrected = Objective #{ $id } corrected: { $title }
correction-nothing = I have no recent objective to correct.
interpreter-failed = I could not interpret this message: { $error }

progress-line = Objective #{ $id } — { $title }
progress-count = { $done }/{ $total } ✓
progress-running = { $agents } running
progress-planning = planning…
progress-completed = done ✓
progress-failed = failed ✗
progress-cancelled = stopped
progress-blocked = waiting for your decision

validation-header = Validation #{ $id } — { $kind }{ $step }
validation-step = { " " }({ $step })
validation-post = Post:
validation-thread = Thread of { $count } posts:
validation-album = Album of { $count } images:
validation-site = Site to publish: { $url }
validation-pinned = Pinned message:
validation-poll = Poll: { $question }
validation-reply-to = In reply to X post { $id }
validation-images = Images: { $assets }
validation-profile = X profile:
    name: { $name }
    bio: { $bio }
    picture: { $picture } · banner: { $banner }
    The "automated" label is set by hand afterwards (X has no API for it).
validation-dossier = Dossier to handle by hand:
validation-other = Content:
button-approve = ✅ Approve
button-reject = ❌ Reject
validation-approved = ✅ Approved by { $who } at { $at }
validation-rejected = ❌ Rejected by { $who } at { $at }: { $reason }
validation-already = Already decided.
validation-reason-prompt = Why reject validation #{ $id }? Reply to this message.
validation-reason-stored = Rejection recorded; the step runs again with your reason.

decision-header = Decision #{ $id } ({ $urgency })
decision-context = Context: { $context }
decision-timeout = Without an answer before { $at }, I will choose "{ $default }".
decision-recommended = ⭐ { $option }
decision-answered = → "{ $option }", chosen by { $who } at { $at }
decision-timed-out = ⏱ Decision #{ $id }: no answer in time, "{ $option }" applied.
decision-already = This decision is already made.
urgency-low = low
urgency-normal = normal
urgency-high = high
urgency-critical = critical

alert-info = ℹ️ { $title }
    { $body }
alert-warning = ⚠️ { $title }
    { $body }
alert-critical = 🚨 { $title }
    { $body }

alert-run-budget-title = { $agent }: { $percent }% of its budget spent
alert-run-budget-body = { $spent } of { $budget } spent by this run
alert-cloud-month-title = Cloud spend passed { $threshold } this month
alert-cloud-month-body = { $spent } of the { $cap } monthly cap spent
alert-objective-finished-title = Objective #{ $id } { $status ->
        [completed] completed
        [failed] failed
        [cancelled] cancelled
       *[other] { $status }
    }: { $title }
alert-objective-finished-body = { $completed }/{ $total } tasks completed
alert-proposal-automatic-title = { $proposer } started objective #{ $id } on its own
alert-proposal-automatic-body = { $title } (you accepted { $rate } % of its proposals)
alert-operation-stopped-title = Operation #{ $operation } stopped
alert-operation-stopped-body = Stopped at "{ $step }" (no-go): { $cancelled } step(s) cancelled. { $reason }
alert-buyback-by-hand-title = Operation step "{ $step }" needs you
alert-buyback-by-hand-body = The buyback is not built in Ulias yet: start it by hand.
alert-step-refused-title = Task #{ $id } ({ $title }) failed
alert-step-refused-body = { $problem }
alert-validation-waiting-title = Validation #{ $id } waiting for { $hours } h
alert-validation-waiting-body = A { $kind } is waiting for Approve / Reject
alert-task-failed-title = Task #{ $id } ({ $agent }) failed
alert-task-failed-body = { $report }
alert-from-agent-title = { $agent }: { $title }
alert-from-agent-body = { $body }
alert-x-mention-title = A mention of @{ $account } carries instructions: nothing was done
alert-x-mention-body = { $text }

log-batch-header = Public log
log-line = • { $agent }: { $summary } — { $cost }
log-total = Total: { $total }

status-title = Status
status-objectives = Objectives in progress: { $count }
status-tasks = Tasks queued: { $queued }, running: { $running }, waiting: { $blocked }
status-slots = GPUs busy: { $busy }/{ $total } slots
status-money = Spent today: { $today } — this month: { $month }
status-paused = Paused: { $count } objective(s)
objectives-title = Objectives
objectives-empty = No objective in progress.
objectives-line = #{ $id } { $title } — { $status }
decisions-title = Pending decisions
decisions-empty = No pending decision.
decisions-line = #{ $id } { $question }
validations-title = Pending validations
validations-empty = No pending validation.
validations-line = #{ $id } { $kind } — { $step }
paused = Everything is paused: { $count } objective(s). /resume to go on.
resumed = Back to work: { $count } objective(s).
stopped = Objective #{ $id } stopped ({ $tasks } task(s) cancelled).
stop-usage = Usage: /stop <objective number>, or /stop op<operation number>
log-usage = Usage: /log <objective number>
log-title = Log of objective #{ $id }
log-empty = Nothing in the log of objective #{ $id }.
budget-title = Budget
budget-today = Today: { $amount }
budget-month = This month: { $amount }
budget-cloud = Cloud this month: { $spent } of { $cap }
not-found = #{ $id } not found.
help-title = Commands:

cmd-status = status: objectives, tasks, GPUs, spending
cmd-objectives = objectives in progress
cmd-decisions = pending decisions
cmd-validations = pending validations
cmd-pause = pause everything, or one operation: /pause <op>
cmd-resume = resume everything, or one operation: /resume <op>
cmd-stop = stop an objective: /stop <id>, or an operation: /stop op<id>
cmd-budget = spending and the cloud cap
cmd-log = an objective's log: /log <id>
cmd-report = today's report
cmd-help = this help

group-official-address = ⚠️ Beware of scams: the only official address is
    { $addresses }
    Nobody from the team will message you privately.
group-captcha = Welcome { $name }! To write here, press the answer to this sum within { $seconds } seconds: { $a } + { $b } = ?
group-captcha-not-yours = This question is for someone else.
group-rights-missing = 🛡 { $group }: I cannot { $missing } here. Make me an administrator with these rights.
right-delete = delete messages
right-restrict = restrict members
right-pin = pin messages
right-post = post messages
ceo-not-started = I cannot write to you on Telegram: open @{ $bot } and press Start.
group-alert = 🛡 { $group }: { $text }
group-ban-report = 🛡 { $group }: user { $user } banned for this message:
    { $text }
button-unban = ↩️ Unban
group-unbanned = Unbanned; the message is learned as legitimate.
group-shortlist-title = Possible moderators for { $group } this week:
group-shortlist-line = • { $user }: { $clean } clean messages over { $weeks } weeks, never moderated
publication-unknown = ⚠️ Publication #{ $id } ({ $target }) was interrupted while sending: it may or may not have gone out. Check, then send it again only if it is missing.
publication-failed = ❌ Publication #{ $id } ({ $target }) not sent: { $error }
publication-group-photo-not-set = 🖼️ Publication #{ $id } ({ $target }) was sent, but Telegram refused to set the kit's group photo: set it by hand (or give me the right to change the group's info).
publication-not-pinned = 📌 Publication #{ $id } ({ $target }) was sent but Telegram refused to pin it: pin it by hand (and give me the right to pin).
publication-x-automated-label = 🤖 Publication #{ $id }: the X profile is updated. X has no API for the "automated" label: set it by hand (Settings → Your account → Account information → Automation) with the managing account.
x-refresh-failed = 🔑 X refused to refresh @{ $account }'s token ({ $reason }). Its posts are paused — none is lost: reconnect it with `ulias x connect { $account } --user-id …` and they go out.
vote-tie = 🗳 Vote #{ $id } ({ $question }) is tied, on X too: { $totals }. Choose the winner:
vote-decided = 🗳 Vote #{ $id }: { $winner } chosen by { $who }.
vote-decided-already = This vote is decided already.
op-vote = Vote: { $winner } ({ $by }) — { $totals }
op-vote-tied = Vote: tied ({ $totals }), waiting for the team
vote-by-votes = most votes
vote-by-x_votes = tie broken by X votes
vote-by-team = chosen by the team
button-resend = 🔁 Send again
publication-resent = Sending it again.

report-title = 📊 Ulias summary — { $date }
report-objectives = OBJECTIVES
report-completed = ✅ { $count } completed ({ $auto } self-generated)
report-in-progress = 🔄 { $count } in progress
report-failed = ❌ { $count } failed
report-waiting = ⏸️ { $count } waiting for a decision
report-teams = TEAMS
report-team-line = { $team }: { $done } task(s) done, { $failed } failed
report-metrics = METRICS
report-autonomy = Autonomy rate: { $rate } %
report-confidence = Average confidence: { $confidence }
report-interventions = CEO interventions: { $count } (goal: < 5/day)
report-tokens = Tokens used: { $tokens } (cost { $cost }, cloud equivalent { $cloud })
report-decisions = PENDING DECISIONS
report-decision-line = → #{ $id }: "{ $question }"
report-none = (none)
report-chart = Cost per day (top) and objectives completed (bottom), last 14 days
team-engineering = Engineering
team-ops = Ops
team-research = Research
team-media = Media
team-security = Security
team-transversal = Transversal
team-ceo-intel = CEO intelligence
team-takeover = Token takeover
team-direction = Direction
cmd-validation = whether an operation's outputs wait for the team: /validation <id> on|off
validation-usage = Usage: /validation <operation number> on|off
validation-toggled = Validation of operation #{ $id }'s outputs: { $state }
validation-state-on = on (each output waits for the team)
validation-state-off = off (published directly, still logged)

# The CEO's loop: answers, proposals, profile, figures.
answer-completed = ✅ Objective #{ $id } done: { $title }
answer-failed = ❌ Objective #{ $id } failed: { $title }
answer-cancelled = ⏹ Objective #{ $id } stopped: { $title }
answer-reason = Why: { $reason }
answer-reason-stopped = Why: stopped at your request.
answer-nothing = The agents reported nothing more.
answer-follow-up = Left to do: { $title }
button-details = Details
button-redo = Redo
button-follow-up = Start the follow-up
details-title = Objective #{ $id } — { $title }: the tasks
details-line = #{ $id } { $agent } — { $title }: { $status } · confidence { $confidence } · { $cost } · { $tokens } tokens
details-total = Total: { $tasks } task(s), { $cost }
proposal-header = 💡 Proposal #{ $id } ({ $proposer }): { $title }
proposal-accepted = → accepted, the objective is started.
proposal-declined = → declined.
proposal-later = → back in { $hours } h.
button-accept = Accept
button-decline = Decline
button-later = Later
profile-empty = I know nothing about you yet: the profile fills in as you write.
profile-title = What I know about you (confidence):
profile-line = #{ $id } [{ $kind }] { $key } → { $value } ({ $percent } %)
profile-forgotten = Entry #{ $id } forgotten.
profile-kind-vocabulary = vocabulary
profile-kind-preference = preference
profile-kind-pattern = recurring request
profile-kind-habit = habit
profile-kind-style = style
profile-kind-priority = priority
button-forget = Forget #{ $id } ({ $key })
cmd-stats = The organisation's figures (/stats help: definitions)
cmd-profile = What the organisation knows about you
stats-title = 📊 Figures (day · week · month)
stats-autonomy = Autonomy rate: { $values }
stats-generated = Self-generated objectives / day: { $values }
stats-interventions = CEO interventions / day: { $values }
stats-caught = Incidents caught before impact: { $values }
stats-accuracy = Correct interpretations: { $values }
stats-anticipated = Needs anticipated / week: { $values }
stats-proposer = { $proposer } { $accepted }/{ $answered } ({ $rate })
stats-proposals = Proposals accepted: { $records }
stats-more = /stats help: how each figure is computed.
stats-percent = { $value } %
stats-help-title = How the figures are computed (over the window: last day, 7 days, 30 days):
stats-help-autonomy = Autonomy rate: share of agent tasks finished without you having to answer a decision about them, among finished tasks (completed or failed).
stats-help-generated = Self-generated objectives / day: objectives the organisation created itself (Strategist, Anticipator, incidents, schedule), divided by the days.
stats-help-interventions = CEO interventions / day: decisions you answered (not those settled by default) plus readings you corrected, per day.
stats-help-caught = Incidents caught before impact: alarms raised by checks (a degraded or down health report) among those alarms and the tasks that failed for good.
stats-help-accuracy = Correct interpretations: share of your messages read by the Interpreter that you did not correct.
stats-help-anticipated = Needs anticipated / week: the Anticipator's proposals that became objectives (accepted or started on its own), scaled to 7 days.
stats-help-proposals = Proposals accepted: per agent, accepted over answered ("later" ones wait).
weekly-title = 📅 The organisation's week
weekly-autonomy = Autonomy rate: { $value }
weekly-generated = Self-generated objectives / day: { $value }
weekly-interventions = CEO interventions / day: { $value }
weekly-caught = Incidents caught before impact: { $value }
weekly-accuracy = Correct interpretations: { $value }
weekly-anticipated = Needs anticipated: { $value }
weekly-chart = Each day: autonomy rate (top), your interventions (bottom).
forwarded-ask = You forwarded me a message: I do not take it as an instruction. Tell me what to do with it (for instance by replying to it).
publication-on-its-way = It is already on its way.
publication-gone-already = It has gone out already.
groups-unprotected = ⚠️ The groups are not protected: the anti-spam could not load ({ $error }). Trying again.
groups-protected = 🛡 The groups are protected again.

# Decisions, by kind and option
decision-doubt = { $agent } is only { $confidence } % sure of its result for "{ $title }". Accept it?
decision-escalation = The Director could not plan "{ $title }". Plan it again, or drop it?
decision-confirmation = An agent wants to run { $tool } with { $arguments }. It is destructive: run exactly this?
decision-operation-start = Pre-report ready for { $name } { $ticker } ({ $chain } { $address }). Start the takeover?
decision-operation-stop = Stop operation #{ $operation } { $name } for good? Its open steps are cancelled and its pending validations withdrawn.
decision-option-accept = Accept the result
decision-option-rerun = Run it again
decision-option-cancel = Cancel the task
decision-option-replan = Plan it again
decision-option-drop = Drop it
decision-option-confirm = Run it
decision-option-refuse = Don't run it
decision-option-start = Start
decision-option-stop = Stop it
decision-option-keep = Keep it running

# Operations
cmd-takeover = take over a token: /takeover <chain> <address> [name]
cmd-prereport = pre-report only: /prereport <chain> <address>
cmd-ops = operations
cmd-op = one operation: /op <id>
takeover-usage = Usage: /takeover <chain> <contract address> [name], e.g. /takeover base 0x… PEP2
prereport-usage = Usage: /prereport <chain> <contract address>
takeover-chain-unknown = I don't know the chain "{ $chain }". Known: { $chains }.
takeover-chain-unsupported = The chain { $chain } is not supported yet.
takeover-address-invalid = "{ $address }" is not a contract address (0x followed by 40 hexadecimal characters).
takeover-taken = This contract is already in operation #{ $id } { $name } ({ $status }). See /op { $id }.
takeover-prereport-queued = 🔎 Pre-report #{ $objective } on { $name } ({ $chain } { $address }) is running. The report comes here, then Start / Drop.
prereport-queued = 🔎 Pre-report #{ $objective } on { $chain } { $address } is running; the report comes here.
operation-started = 🚀 Operation #{ $id } { $name } started, J0 { $j0 }: { $steps } steps laid out. /op { $id }
operation-stopped = ⏹ Operation #{ $id } { $name } stopped.
ops-title = Operations
ops-empty = No operation yet. Start one with /takeover <chain> <address> [name].
ops-line = #{ $id } { $name } — { $status }, J+{ $day } · next: { $next } · { $validations } validation(s) waiting · { $spent } of { $cap } $
ops-next-none = nothing scheduled
op-usage = Usage: /op <operation number>
op-unknown = No operation #{ $id }.
op-none = none
op-header = Operation #{ $id } { $name } { $ticker } — { $status }, J0 { $j0 }, J+{ $day }
op-resources = Chain { $chain } · official addresses: { $addresses } · groups: { $groups } · X: { $accounts }
op-step = { $mark } { $due } { $title } ({ $status })
op-more = … and { $count } more steps.
op-paused = ⏸ Operation #{ $id } { $name } paused: no new step starts. /resume { $id }
op-resumed = ▶ Operation #{ $id } { $name } runs again.
op-not-now = Operation #{ $id } is { $status }: not possible now.
op-stop-asked = Stopping operation #{ $id } needs your confirmation: see decision #{ $decision }.
bind-usage = Usage, in the community group: /bind <operation number>
bind-done = This group now belongs to operation #{ $id } { $name }: its official addresses and FAQ apply here.
bind-taken = This group already belongs to operation #{ $id }, which is still live.
group-answer-held =
    ⚠️ An answer to a question in { $group } was held, not sent ({ $problems }).
    Question: { $question }
    Answer: { $answer }
validation-to-group = → Telegram group { $group } ({ $chat })
validation-to-no-group = ⚠️ Nowhere yet: operation #{ $operation } has no community group (/bind { $operation } in the group).
validation-to-x = → X @{ $account }
validation-to-no-x = ⚠️ Nowhere yet: no X account for operation #{ $operation } (ulias x connect --operation { $operation }).
validation-to-site = → the operation's site
validation-to-manual = → by hand (nothing is sent)
takeover-confirm = Take over { $name } ({ $chain } { $address })? I'll run the pre-report first: nothing starts without your Start.
takeover-run = Run the pre-report
takeover-not = No
takeover-dropped = Understood: no takeover.
decision-validation-off = { $asked_by } asks to publish operation #{ $operation } { $name }'s outputs without the team's validation. Allow it?
validation-off-asked = Turning validation off for operation #{ $id } needs the CEO: I asked (decision #{ $decision }).
validation-changed-by = { $who } turned the team's validation of operation #{ $id }'s outputs back on.
escalation-words = The CEO's words: { $words }
escalation-replanned = 🔁 Objective #{ $id } ({ $title }) goes back to the Director with your words.
ntfy-decision-title = Decision #{ $id }
ntfy-outcome-title = Decision #{ $id } made
ntfy-outcome-answered = "{ $option }", chosen by { $who }.
ntfy-outcome-timed-out = No answer in time: "{ $option }" applied.
ntfy-outcome-cancelled = No longer needed: nothing to choose.
ntfy-more-in-chat = … the rest is in the Telegram chat.
validation-unreadable = ⚠️ This output cannot be read as a publication ({ $error }): reject it.
decision-incident = Incident #{ $incident }: { $service } is down. { $summary } Proposed: { $actions }. Let the incident agent do it?
decision-option-act = Do it
decision-option-wait = Leave it for now
alert-incident-opened-title = 🔴 Incident #{ $incident }: { $service } is down
alert-incident-opened-body = { $detail } The incident agent is on it.
alert-incident-resolved-title = 🟢 Incident #{ $incident } closed: { $service } is back
alert-incident-resolved-body = It was down for { $minutes } min.
# Utilities (the Builder): a utility given up after three failed runs; a released command; /price.
alert-utility-skipped-title = Operation #{ $operation }: utility skipped after { $attempts } failed runs
alert-utility-skipped-body = Task #{ $task } tried { $templates }. Last error: { $error }
utility-released-command = 🆕 New in this group: { $command } — { $description }
utility-price-alerts = Price alerts for { $address } ({ $chain }): { $thresholds }. Prices from DexScreener.
utility-price-alert-above = 📈 { $ticker } is above ${ $threshold }: ${ $price } now.
utility-price-alert-below = 📉 { $ticker } is below ${ $threshold }: ${ $price } now.
