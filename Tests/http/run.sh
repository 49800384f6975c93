#!/usr/bin/env bash
# End-to-end hot updates over HTTP with a real nginx on 127.0.0.1, started and stopped here: publish v1 and install
# it; change one plate and one transcript, publish v2, update — the installed tree equals v2 and nginx's access log
# shows the delta's bytes, not the pack's. Then a truncated response, a flipped byte, an old index served again, an
# expired index, a server that stops sending and a delta for the wrong base: each fails clearly and v2 stays intact.
set -euo pipefail
cd "$(dirname "$0")/../.."
# nginx lives in /usr/sbin, which a user's PATH (and CI's stock PATH) need not include.
PATH="$PATH:/usr/sbin:/sbin"
BUILD=$(swift build --show-bin-path)
swift build --product packtool >/dev/null
P="$BUILD/packtool"
work=$(mktemp -d)
chmod 755 "$work"
# renew keeps a memory of each tree it renews: this run's own, not the user's.
export XDG_STATE_HOME="$work/xdg-state"
nginx_pid=""
py_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  [ -n "$py_pid" ] && kill "$py_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
# Waits up to 20 s (a loaded machine starts servers slowly) for URL to answer; fails loudly, with what the server said,
# instead of letting the first test run against nothing.
wait_for() {
  for _ in $(seq 200); do curl -s -o /dev/null "$1" 2>/dev/null && return 0; python3 -c 'import time; time.sleep(0.1)'; done
  echo "FAIL no server answered at $1"; cat "$work/nginx-start.log" "$work/nginx/logs/error.log" 2>/dev/null; exit 1
}

for r in root manifest index grant; do "$P" key generate --role $r --out "$work/keys" --unencrypted >/dev/null; done
cp keys-example/historian.pem "$work/keys/historian.pem"; chmod 600 "$work/keys/historian.pem"
"$P" root init --state "$work/pub" --root-key "$work/keys/root.pem" --manifest-pub "$work/keys/manifest.pub" \
  --index-pub "$work/keys/index.pub" --grant-pub "$work/keys/grant.pub" >/dev/null
cp -r scenes/royal-mile "$work/pack"
publish() { SOURCE_DATE_EPOCH=$(date +%s) "$P" sign "$work/pack" --state "$work/pub" --manifest-key "$work/keys/manifest.pem" \
  --index-key "$work/keys/index.pem" --publish "$work/cdn" "$@" >/dev/null 2>&1; }
publish
cp "$work/cdn/index.json" "$work/index-v1.json"

port=$(free_port)
tls_port=$(free_port)
# A private CA and a certificate for "localhost" only (not 127.0.0.1), for the https tests.
mkdir -p "$work/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=packtool test CA" -keyout "$work/tls/ca.key" -out "$work/tls/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$work/tls/server.key" -out "$work/tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost\n' > "$work/tls/san.ext"
openssl x509 -req -in "$work/tls/server.csr" -CA "$work/tls/ca.pem" -CAkey "$work/tls/ca.key" -CAcreateserial -days 2 \
  -extfile "$work/tls/san.ext" -out "$work/tls/server.pem" 2>/dev/null
mkdir -p "$work/nginx/logs"
cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
user root root;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log;
events { worker_connections 64; }
http {
  log_format bytes '\$uri \$status \$body_bytes_sent \$connection \$http_range';
  access_log $work/nginx/logs/access.log bytes;
  server {
    listen 127.0.0.1:$port;
    root $work/cdn;
    # A mirror that moved: everything under /old/ redirects to the same path at the root.
    location /old/ { rewrite ^/old/(.*)\$ /\$1 permanent; }
    # The same tree throttled, so a streamed install lasts long enough to be killed anywhere in it.
    location /slow/ { alias $work/cdn/; limit_rate 8m; }
  }
  server {
    listen 127.0.0.1:$tls_port ssl;
    ssl_certificate $work/tls/server.pem;
    ssl_certificate_key $work/tls/server.key;
    root $work/cdn;
  }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" 2>"$work/nginx-start.log" &
nginx_pid=$!
wait_for "http://127.0.0.1:$port/index.json"

update() { "$P" update --tree "$1" --into "$work/app" --pack royal-mile --root "$work/pub/root/1.root.json" --timeout 2; }
installed() { "$P" install --verify --into "$work/app" --pack royal-mile; }

update "http://127.0.0.1:$port" | grep -q "version 1 (full archive)" || fail "v1 did not install over HTTP"
pass "v1 installed over HTTP from nginx"

# v2: one plate replaced, one transcript edited, the scene re-signed.
cp "$work/pack/stops/02-gladstones-land/layers/1647-16x9.heic" "$work/pack/stops/03-mercat-cross/layers/1824-16x9.heic"
sed -i 's/Stand here/Please stand here/' "$work/pack/stops/03-mercat-cross/story.vtt"
"$P" review sign "$work/pack/stops/03-mercat-cross" --reviewer-key "$work/keys/historian.pem" --reviewer example-historian >/dev/null 2>&1
publish
: > "$work/nginx/logs/access.log"
update "http://127.0.0.1:$port" | grep -q "version 1 → version 2 (deltas); changed: 03-mercat-cross" || fail "v2 did not arrive by delta"
installed | grep -q "version 2: 76 files checked, intact" || fail "the installed tree is not v2"
# The installed scene equals the authored v2 scene file for file.
diff -r --exclude=.manifest.json "$work/app/royal-mile/current/stops" "$work/pack/stops" >/dev/null || fail "installed files differ from v2"
delta_size=$(stat -c %s "$work/cdn/packs/royal-mile/deltas/03-mercat-cross/1-2.tar")
archive_size=$(stat -c %s "$work/cdn/packs/royal-mile/2/royal-mile-2.tar")
grep -q "/deltas/03-mercat-cross/1-2.tar 200 $delta_size" "$work/nginx/logs/access.log" || fail "nginx did not serve the delta"
grep -q "royal-mile-2.tar" "$work/nginx/logs/access.log" && fail "the full archive was downloaded"
total=$(awk '{s += $3} END {print s}' "$work/nginx/logs/access.log")
[ "$total" -lt $((archive_size / 10)) ] || fail "transferred $total bytes, the archive is $archive_size"
pass "v2 by delta: nginx sent $total bytes in all (delta $delta_size), the pack archive is $archive_size"
requests=$(wc -l < "$work/nginx/logs/access.log")
connections=$(awk '{print $4}' "$work/nginx/logs/access.log" | sort -u | wc -l)
[ "$requests" -ge 4 ] && [ "$connections" = 1 ] || fail "the hot update's $requests requests used $connections connections: $(cat "$work/nginx/logs/access.log")"
pass "the hot update's $requests requests (root, index, manifest, delta) shared one kept-alive connection"

# v3, to attempt with broken servers and trees; every attempt must leave v2 intact.
sed -i 's/Please stand here/Do stand here/' "$work/pack/stops/03-mercat-cross/story.vtt"
"$P" review sign "$work/pack/stops/03-mercat-cross" --reviewer-key "$work/keys/historian.pem" --reviewer example-historian >/dev/null 2>&1
cp -r "$work/cdn" "$work/cdn-v2"
publish
cp -r "$work/cdn" "$work/cdn-v3"
expect_refused() {  # NAME PATTERN URL
  out=$(update "$3" 2>&1) && fail "$1: the update succeeded"
  echo "$out" | grep -q "$2" || fail "$1: unexpected error: $out"
  installed | grep -q "version 2: 76 files checked, intact" || fail "$1: v2 is not intact"
  pass "$1 refused ($2), v2 intact"
}
restore() { rm -rf "$work/cdn"; cp -r "$work/cdn-v3" "$work/cdn"; }

# A flipped byte in both deltas (so the fallback fails too).
for d in 2-3 0-3; do
  f="$work/cdn/packs/royal-mile/deltas/03-mercat-cross/$d.tar"
  python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2+100]^=1; open(p,'wb').write(b)" "$f"
done
expect_refused "a flipped byte" "does not match" "http://127.0.0.1:$port"
restore

# An old index served again (the v1 index, after the client has seen v2's).
cp "$work/index-v1.json" "$work/cdn/index.json"
expect_refused "an old index served again" "older than version" "http://127.0.0.1:$port"
restore

# An expired index (a mirror that stopped updating): publish v4 with an index that expires in three seconds (an
# index already expired when signed is refused by the publisher itself: no client would take it).
sed -i 's/Do stand here/Now stand here/' "$work/pack/stops/03-mercat-cross/story.vtt"
"$P" review sign "$work/pack/stops/03-mercat-cross" --reviewer-key "$work/keys/historian.pem" --reviewer example-historian >/dev/null 2>&1
publish --index-days 0.000035
sleep 4
expect_refused "an expired index" "expired" "http://127.0.0.1:$port"
restore

# A delta for the wrong target: the 1→2 delta under 2→3's name, and no full-scene fallback.
cp "$work/cdn/packs/royal-mile/deltas/03-mercat-cross/1-2.tar" "$work/cdn/packs/royal-mile/deltas/03-mercat-cross/2-3.tar"
rm "$work/cdn/packs/royal-mile/deltas/03-mercat-cross/0-3.tar"
expect_refused "a delta for the wrong base or target" "no usable delta\|does not lead\|starts from" "http://127.0.0.1:$port"
restore

# A truncated response and a server that stops sending (a small Python server that misbehaves on purpose).
for mode in truncate stall; do
  pyport=$(free_port)
  python3 Tests/http/misbehaving_server.py "$pyport" "$work/cdn" "$mode" &
  py_pid=$!
  wait_for "http://127.0.0.1:$pyport/index.json"
  expect_refused "a $mode response" "interrupted\|timed out\|no usable delta" "http://127.0.0.1:$pyport"
  kill "$py_pid"; wait "$py_pid" 2>/dev/null || true; py_pid=""
done

# Transports, each a fresh install of v3 into its own folder: https with the private CA (and refused without it, or
# for a name the certificate does not carry), a moved mirror (redirects), a chunked server, and a download cut in
# half that resumes with a Range request.
fresh() {  # NAME URL [ENV...] — installs into $work/fresh-NAME
  local name=$1 url=$2; shift 2
  env "$@" "$P" update --tree "$url" --into "$work/fresh-$name" --pack royal-mile --root "$work/pub/root/1.root.json" --timeout 5
}
fresh_ok() {  # NAME URL [ENV...]
  out=$(fresh "$@" 2>&1) || fail "$1: $out"
  echo "$out" | grep -q "full archive" || fail "$1: unexpected result: $out"
  "$P" install --verify --into "$work/fresh-$1" --pack royal-mile | grep -q "intact" || fail "$1: the install is not intact"
}
fresh_ok https "https://localhost:$tls_port" SSL_CERT_FILE="$work/tls/ca.pem"
pass "https with a trusted certificate installs v3"
out=$(fresh https-untrusted "https://localhost:$tls_port" SSL_CERT_FILE=/nonexistent 2>&1) && fail "an untrusted certificate was accepted"
echo "$out" | grep -q "not trusted" || fail "untrusted certificate: unexpected error: $out"
[ ! -e "$work/fresh-https-untrusted/royal-mile" ] || fail "an untrusted server left an install behind"
pass "https with a certificate from an unknown CA is refused ($(echo "$out" | grep -o 'not trusted[^;]*' | head -1))"
out=$(fresh https-name "https://127.0.0.1:$tls_port" SSL_CERT_FILE="$work/tls/ca.pem" 2>&1) && fail "a certificate for another name was accepted"
echo "$out" | grep -q "not trusted" || fail "wrong name: unexpected error: $out"
pass "https to a name the certificate does not carry is refused"
fresh_ok redirect "http://127.0.0.1:$port/old"
grep -q "^/old/index.json 301" "$work/nginx/logs/access.log" || fail "the redirect was not exercised"
pass "a moved mirror: redirects are followed (301 in nginx's log) and v3 installs"
for mode in chunked resume; do
  pyport=$(free_port)
  python3 Tests/http/misbehaving_server.py "$pyport" "$work/cdn" "$mode" "$work/$mode.log" &
  py_pid=$!
  wait_for "http://127.0.0.1:$pyport/index.json"
  fresh_ok "$mode" "http://127.0.0.1:$pyport"
  kill "$py_pid"; wait "$py_pid" 2>/dev/null || true; py_pid=""
done
pass "a chunked server: v3 installs"
archive_v3=$(ls "$work"/cdn/packs/royal-mile/*/royal-mile-*.tar | sort -V | tail -1)
half=$(( $(stat -c %s "$archive_v3") / 2 ))
grep -q "royal-mile-.*\.tar $half\$" "$work/resume.log" || fail "the archive download did not resume at byte $half: $(cat "$work/resume.log")"
pass "a download cut in half resumes with Range: bytes=$half- and v3 installs"

# A download cut in half whose Range retry claims a body of 2^64 - 1 bytes: a refusal (exit 1), not a trap (132).
pyport=$(free_port)
python3 Tests/http/misbehaving_server.py "$pyport" "$work/cdn" endless-range &
py_pid=$!
wait_for "http://127.0.0.1:$pyport/index.json"
rc=0; out=$(fresh endless "http://127.0.0.1:$pyport" 2>&1) || rc=$?
kill "$py_pid"; wait "$py_pid" 2>/dev/null || true; py_pid=""
[ "$rc" = 1 ] || fail "an endless Range answer: exit $rc, not a refusal: $out"
echo "$out" | grep -q "fetch-size\|signed size\|out of range" || fail "an endless Range answer: unexpected error: $out"
[ ! -e "$work/fresh-endless/royal-mile" ] || fail "an endless Range answer left an install behind"
pass "a Range retry claiming an endless body is refused (exit 1), nothing installed"

# Finally the good tree again: the update completes.
update "http://127.0.0.1:$port" | grep -q "version 2 → version" || fail "the update did not complete after the failures"
pass "after every failure, the update from a good server completes"

# A real root rotation to a new index key (packtool root rotate), then a release signed only by the new key: the
# update fetches root/2.root.json from the server, follows it, and accepts the new index.
mkdir -p "$work/keys2"
"$P" key generate --role index --out "$work/keys2" --unencrypted >/dev/null
"$P" root rotate --state "$work/pub" --sign-with "$work/keys/root.pem" --index-pub "$work/keys2/index.pub" >/dev/null
sed -i 's/Now stand here/Stand right here/' "$work/pack/stops/03-mercat-cross/story.vtt"
"$P" review sign "$work/pack/stops/03-mercat-cross" --reviewer-key "$work/keys/historian.pem" --reviewer example-historian >/dev/null 2>&1
SOURCE_DATE_EPOCH=$(date +%s) "$P" sign "$work/pack" --state "$work/pub" --manifest-key "$work/keys/manifest.pem" \
  --index-key "$work/keys2/index.pem" --publish "$work/cdn" >/dev/null 2>&1 || fail "publishing after the rotation failed"
[ -f "$work/cdn/root/2.root.json" ] || fail "the rotated root was not published"
: > "$work/nginx/logs/access.log"
out=$(update "http://127.0.0.1:$port" 2>&1) || fail "the update after a root rotation failed: $out"
grep -q "^/root/2.root.json 200" "$work/nginx/logs/access.log" || fail "root/2.root.json was not fetched"
pass "after a root rotation to a new index key, the update follows root 2 and installs ($(echo "$out" | grep "→" | head -1))"

# Two scenes changed at once: both deltas, and the documents before them, come over one kept-alive connection.
for stop in 01-castle-esplanade 05-netherbow; do
  # The first cue's text gains a word (the cue timings stay).
  python3 -c "import sys; p=sys.argv[1]; l=open(p).read().split('\n'); i=next(n for n, x in enumerate(l) if '-->' in x) + 1; l[i]='Now, ' + l[i]; open(p, 'w').write('\n'.join(l))" "$work/pack/stops/$stop/story.vtt"
  "$P" review sign "$work/pack/stops/$stop" --reviewer-key "$work/keys/historian.pem" --reviewer example-historian >/dev/null 2>&1
done
SOURCE_DATE_EPOCH=$(date +%s) "$P" sign "$work/pack" --state "$work/pub" --manifest-key "$work/keys/manifest.pem" \
  --index-key "$work/keys2/index.pem" --publish "$work/cdn" >/dev/null 2>&1 || fail "publishing two changed scenes failed"
: > "$work/nginx/logs/access.log"
out=$(update "http://127.0.0.1:$port" 2>&1) || fail "the two-scene update failed: $out"
echo "$out" | grep -q "(deltas); changed: 01-castle-esplanade, 05-netherbow" || fail "the two-scene update: $out"
deltas=$(grep -c "/deltas/.* 200 " "$work/nginx/logs/access.log" || true)
connections=$(awk '{print $4}' "$work/nginx/logs/access.log" | sort -u | wc -l)
[ "$deltas" = 2 ] && [ "$connections" = 1 ] || fail "two deltas over $connections connections: $(cat "$work/nginx/logs/access.log")"
installed | grep -q "intact" || fail "the two-scene update left a damaged install"
pass "two changed scenes: both deltas over one kept-alive connection, applied together"

# A pack-level change (pack.json) makes the next update take the whole archive, which streams: downloaded, verified
# and written in one pass. SIGKILL at 100 random moments of it: the install is always the old version or the new one.
old=$(installed | grep -o "version [0-9]*" | grep -o "[0-9]*")
python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['title']+=' (revised)'; json.dump(d, open(p,'w'), indent=2)" "$work/pack/pack.json"
SOURCE_DATE_EPOCH=$(date +%s) "$P" sign "$work/pack" --state "$work/pub" --manifest-key "$work/keys/manifest.pem" \
  --index-key "$work/keys2/index.pem" --publish "$work/cdn" >/dev/null 2>&1 || fail "publishing the pack-level change failed"
python3 Tests/http/kill_during_install.py "$P" "$work/app" "http://127.0.0.1:$port/slow" "http://127.0.0.1:$port" \
  "$work/pub/root/1.root.json" "$old" "$((old + 1))" "${KILL_RUNS:-100}" "$work/nginx/logs/access.log" "$work/cdn" || fail "a kill during a streamed install"

# Issue 32: a first install writes each byte once and keeps no copy of the archive, so it fits a file system of 1.1×
# the archive's size holding both the client state and the install — also when it is killed halfway and resumed from
# its journal. One of 0.9× is refused up front ("space", exit 2: not a refusal of the bytes, a disk too small) and left as it was. The small file systems are tmpfs
# mounted in a mount namespace of their own (root only: CI runs as root).
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  latest=$(ls "$work"/cdn/packs/royal-mile/*/royal-mile-*.tar | sort -V | tail -1)
  size=$(stat -c %s "$latest")
  mnt="$work/tmpfs"; mkdir -p "$mnt"
  cat > "$work/tmpfs.sh" <<SH
set -eu
first() { "$P" update --quiet --tree "\$1" --into "$mnt/app" --client-state "$mnt/state" --pack royal-mile --root "$work/pub/root/1.root.json" --timeout 5; }
mount -t tmpfs -o size=\$(( $size * 9 / 10 )) tmpfs "$mnt"
set +e; out=\$(first "http://127.0.0.1:$port" 2>&1); code=\$?; set -e
[ "\$code" = 2 ] && echo "\$out" | grep -q "\\[space\\]" || { echo "FAIL a 0.9x file system: exit \$code: \$out"; exit 1; }
[ ! -e "$mnt/app/royal-mile" ] || { echo "FAIL the refused install left \$(ls -A "$mnt/app/royal-mile")"; exit 1; }
umount "$mnt"
mount -t tmpfs -o size=\$(( $size * 11 / 10 )) tmpfs "$mnt"
# The tool itself in the background (not the shell function, whose subshell a kill would leave the tool running under).
"$P" update --quiet --tree "http://127.0.0.1:$port/slow" --into "$mnt/app" --client-state "$mnt/state" --pack royal-mile --root "$work/pub/root/1.root.json" --timeout 5 & pid=\$!
# Killed once its journal holds a verified entry (however loaded the machine), not at a fixed time.
for _ in \$(seq 300); do
  ls "$mnt"/app/royal-mile/.resume-*.progress >/dev/null 2>&1 && [ -s "\$(ls "$mnt"/app/royal-mile/.resume-*.progress | head -1)" ] && break
  sleep 0.1
done
kill -9 \$pid; wait \$pid 2>/dev/null || true
ls -A "$mnt/app/royal-mile" | grep -q '^.resume-.*progress\$' || { echo "FAIL the killed install left no journal: \$(ls -A "$mnt/app/royal-mile")"; exit 1; }
progress=\$(cat "$mnt"/app/royal-mile/.resume-*.progress)
first "http://127.0.0.1:$port" || { echo "FAIL the resumed install did not fit 1.1x the archive (df: \$(df -B1 --output=used,size "$mnt" | tail -1))"; exit 1; }
"$P" install --verify --into "$mnt/app" --client-state "$mnt/state" --pack royal-mile | grep -q intact || { echo "FAIL the install in the small file system is not intact"; exit 1; }
echo "ok   a first install fits a tmpfs of 1.1x its $size-byte archive (state and install together), killed once its journal held a verified entry and resumed from entry \$((10#\$progress)) of its journal; \$(df -B1 --output=used "$mnt" | tail -1 | tr -d ' ') bytes used after; a 0.9x one is refused up front (space) and left empty"
SH
  unshare -m bash "$work/tmpfs.sh" || fail "a first install in a small file system"
else
  echo "skip the small-file-system install: mounting a tmpfs needs root and unshare -m"
fi

# `packtool status` reads the tree as clients do, over HTTP: all well now (exit 0); shifted (faketime) to a day before
# the index expires it needs attention (exit 1); after a renew of the folder nginx serves, all well again.
if command -v faketime >/dev/null; then
  "$P" status --state "$work/pub" --tree "http://127.0.0.1:$port" >"$work/status.txt" 2>&1 || fail "status over HTTP: $(cat "$work/status.txt")"
  soon=$(python3 -c 'import datetime; print((datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=6)).strftime("@%Y-%m-%d %H:%M:%S"))')
  set +e; TZ=UTC faketime -f "$soon" "$P" status --state "$work/pub" --tree "http://127.0.0.1:$port" >"$work/status.txt" 2>&1; code=$?; set -e
  [ "$code" = 1 ] && grep -q "a fresh client would refuse it (expired)" "$work/status.txt" || fail "status a day before expiry exited $code: $(cat "$work/status.txt")"
  TZ=UTC faketime -f "$soon" "$P" renew --index-key "$work/keys2/index.pem" --publish "$work/cdn" >/dev/null 2>&1 || fail "renew failed"
  TZ=UTC faketime -f "$soon" "$P" status --state "$work/pub" --tree "http://127.0.0.1:$port" >"$work/status.txt" 2>&1 || fail "status after renew: $(cat "$work/status.txt")"
  pass "status over HTTP: 0 when fresh, 1 a day before the index expires, 0 again after renew"
else
  echo "skip status over HTTP: faketime (apt) is not installed"
fi
