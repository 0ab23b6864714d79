#!/usr/bin/env bash
# CPU used per command name over a window, from /proc/PID/stat (utime + stime, in jiffies of 10 ms), plus the
# machine's busy and idle jiffies. Run it while a benchmark cell is running:
#   bench/cpu-by-process.sh 4        # 4-second window
# Divide a command's jiffies × 10 by the requests served in the window for ms per request.
set -u
secs=${1:-4}
snap() {
  cat /proc/[0-9]*/stat 2>/dev/null | awk '{
    match($0, /\(.*\)/); name = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "_", name)
    split(substr($0, RSTART + RLENGTH + 1), f, " "); print $1, name, f[12] + f[13] }'
}
machine() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
read -r busy0 idle0 < <(machine)
before=$(snap | sort)
sleep "$secs"
after=$(snap | sort)
read -r busy1 idle1 < <(machine)
echo "machine: busy $((busy1 - busy0)) idle $((idle1 - idle0)) jiffies"
join <(echo "$before") <(echo "$after") | awk '{ d = $5 - $3; if (d > 0) cpu[$2] += d } END { for (k in cpu) print cpu[k], k }' | sort -rn | head -20
