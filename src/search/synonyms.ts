/**
 * Words a developer uses for the same thing (DESIGN.md 11, paraphrases): a
 * query word found nowhere also finds the other words of its group. Written
 * as a thesaurus of everyday software English: each group is words one would
 * swap in a sentence about code without changing what is meant. A few groups
 * are pairs the recall set's tuning misses showed (bill and invoice, boot
 * and startup, flicker and flash), so only its held-out part measures it.
 */
import { stem } from "./tokens.ts";

const GROUPS = `
bill invoice
remove delete erase
flicker flash blink
boot startup
launch start
halt stop
kill terminate
crash panic segfault
bug defect
fix patch hotfix
error failure fault
slow sluggish laggy
fast quick speedy
latency delay lag
large big huge massive enormous
tiny small
cutoff deadline
setting config configuration preference
parameter param argument arg
function func method
directory folder dir
repo repository
doc docs documentation
verify validate
inspect examine
locate lookup
display render
generate produce
compile transpile
execute invoke
fetch retrieve download
persist save
modify edit alter
duplicate clone copy
combine merge
divide split
concatenate join
quota cap
retry reattempt
pause sleep wait
cancel abort
bypass skip
permit allow
forbid deny refuse reject block
disable deactivate turn-off
enable activate turn-on
append insert add
customer client
admin administrator
password passphrase passcode
credential token
login signin sign-in logon log-in
logout signout sign-out logoff log-out
signup registration register sign-up
email e-mail
message msg
notification alert
chart graph plot
screen page
image picture photo
video clip movie
audio sound
payment charge
price cost fee
discount coupon promo
refund reimbursement chargeback
purchase order
cart basket
shipping delivery shipment
parcel package
inventory stock
warehouse depot
host machine
container pod
database db datastore
record row
migration schema-change
backup snapshot
restore recover recovery
ram memory
cpu processor
connection socket
response reply
cache memoize
backlog queue
worker consumer
task job
cron scheduler
timezone tz time-zone
dst daylight-saving
empty blank
null nil
legacy outdated stale
newest latest
earliest first
deploy release ship rollout
rollback revert undo
production prod
staging preprod
development dev
environment env
library lib dependency
plugin extension addon add-on
frontend front-end ui
backend back-end
endpoint route
website site webpage
phone mobile smartphone
colleague coworker teammate
manager boss
conversation chat
reason cause
problem issue trouble
proposal suggestion idea
objective goal target
doubled twice duplicated
halved half
increase raise bump
decrease reduce lower shrink
maximum max ceiling
minimum floor
average mean avg
percent percentage
second sec
hour hr
millisecond ms
kilobyte kb
megabyte mb
gigabyte gb
`;

/**
 * Each group's other members, by the stem of a one-word member, built on
 * first use (a capture hook opens the store but never searches). A hyphen
 * joins the words of a member (`turn-off`): it is found as those words side
 * by side, and a query word is only ever one word, so it is no key.
 */
let byStem: Map<string, string[]> | undefined;

function groups(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of GROUPS.trim().split("\n")) {
    const members = line
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/-/g, " "));
    for (const m of members) {
      if (m.includes(" ")) continue;
      const key = stem(m);
      const others = members.filter((o) => stem(o) !== key);
      out.set(key, [...new Set([...(out.get(key) ?? []), ...others])]);
    }
  }
  return out;
}

/** Other words meaning what `folded` (one folded word) means; empty when it is in no group. */
export function synonymsOf(folded: string): string[] {
  byStem ??= groups();
  return byStem.get(stem(folded)) ?? [];
}
