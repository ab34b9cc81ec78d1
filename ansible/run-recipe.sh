#!/bin/sh
# One fleet run's recipe on this host, for fleet-run.yml and fleet-clean.yml. RUN_DIR keeps its
# log, its pid and its exit code (rc). The recipe runs in a session of its own under Ansible's
# async, so an SSH connection that drops, or an ansible-playbook that stops, leaves it
# running; the next fleet.run follows it again from RUN_DIR.
#
#   run-recipe.sh RUN_DIR state      "done 0" or "running" (nothing to start), else "new":
#                                    the run is made ready to start (an old rc removed)
#   run-recipe.sh RUN_DIR start CMD  run CMD (the recipe), recording its pid and rc
#   run-recipe.sh RUN_DIR poll       its state (starting, running, done RC, lost), then the
#                                    log's latest progress line and its latest error line
#   run-recipe.sh RUN_DIR written RECIPE MAX_BYTES
#                                    the result files its log says it wrote, each a regular
#                                    file of at most MAX_BYTES in this tree's data/RECIPE/
#   run-recipe.sh RUN_DIR stop       SIGTERM to the recipe if it runs (its runner cleans up),
#                                    and wait for it to end
set -u
dir=$1 what=$2
shift 2
mkdir -p "$dir"

running() { [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }

now() {
  if [ -f "$dir/rc" ]; then echo "done $(cat "$dir/rc")"
  elif running; then echo running
  elif [ -f "$dir/starting" ] && [ -z "$(find "$dir/starting" -mmin +5)" ]; then echo starting
  else echo lost; fi   # its process ended without an rc: killed, or the host restarted
}

case $what in
state)
  case $(now) in
  "done 0"|running) now ;;
  *) rm -f "$dir/rc" "$dir/pid" && touch "$dir/starting" && echo new ;;
  esac ;;
start)
  # setsid: the recipe leads a process group of its own, which stop signals as a whole.
  setsid -w sh -c 'echo $$ > "$0/pid" && rm -f "$0/starting" && exec "$@"' "$dir" "$@" \
    >> "$dir/log" 2>&1 < /dev/null
  rc=$?
  echo "$rc" > "$dir/rc.new" && mv "$dir/rc.new" "$dir/rc"
  exit "$rc" ;;
poll)
  now
  grep -a '^[[:space:]]*\[' "$dir/log" 2>/dev/null | tail -n 1 | cut -c 1-300
  grep -a -E '^[[:space:]]*(error|interrupted|refusing)' "$dir/log" 2>/dev/null | tail -n 1 \
    | cut -c 1-300 ;;
written)
  home="$(pwd -P)/data/$1"
  grep -a '^[[:space:]]*wrote /' "$dir/log" | sed 's/^[[:space:]]*wrote //' | sort -u |
  while IFS= read -r path; do
    case $path in
    "$home"/*/*|"$home"/.*) ;;
    "$home"/*.json)
      if [ ! -f "$path" ] || [ -L "$path" ] || [ "$(stat -c %s "$path")" -gt "$2" ]; then
        echo "$path: not a regular file of at most $2 bytes; expected a result file" >&2
        exit 1
      fi
      echo "$path"
      continue ;;
    esac
    echo "$path: not a result file of $1; expected one in $home/" >&2
    exit 1
  done ;;
stop)
  if running && [ ! -f "$dir/rc" ]; then
    pid=$(cat "$dir/pid")
    kill -s TERM -- "-$pid" && echo "stopped the recipe of $dir (pid $pid)"
    for _ in $(seq 120); do running || break; sleep 1; done
  fi ;;
*) echo "run-recipe.sh: unknown step $what" >&2; exit 2 ;;
esac
