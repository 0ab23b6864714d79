#!/usr/bin/env bash
# Installs what Tolk needs on Debian/Ubuntu: Apertium and its language pairs, the npm dependencies, with --test a
# reachable PostgreSQL for the test suite, and with --models LIST neural models from the model index (LIST: common,
# or directions such as en-de,de-en). Safe to run again; it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_TEST=0
WITH_BENCH=0
MODELS=""
usage() { echo "usage: scripts/setup.sh [--test] [--bench] [--models common|PAIR,PAIR,...]" >&2; exit 2; }
while [ "$#" -gt 0 ]; do
  case "$1" in
    --test) WITH_TEST=1 ;;
    --bench) WITH_BENCH=1 ;;
    --models) [ "$#" -ge 2 ] || usage; MODELS="$2"; shift ;;
    --models=*) MODELS="${1#--models=}" ;;
    *) usage ;;
  esac
  shift
done

SUDO=""
AS_POSTGRES=(runuser -u postgres --)
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; AS_POSTGRES=(sudo -u postgres); fi

# Language pairs installed by default (Debian package names); every mode they ship is probed at start.
DEBIAN_PACKAGES=(apertium apertium-eng-spa apertium-es-pt apertium-fr-es apertium-spa-ita apertium-es-ro
  apertium-swe-dan apertium-dan-nor apertium-swe-nor apertium-rus-ukr apertium-eng-cat apertium-spa-cat)
[ "$WITH_BENCH" = 1 ] && DEBIAN_PACKAGES+=(apertium-apy wrk)
# A C++ compiler builds the tagger shim once (src/engines/apertium/tagger-shim.ts); without it the slower relay is used.
DEBIAN_PACKAGES+=(g++)
# Voice: PocketSphinx and its English model (speech-to-text, loaded through koffi), espeak-ng and flite (translated
# speech), ffmpeg (audio containers). --no-install-recommends below keeps ffmpeg to its codec libraries.
DEBIAN_PACKAGES+=(libpocketsphinx3 pocketsphinx-en-us espeak-ng flite ffmpeg)
# Documents: Tesseract OCR for images (with the data of the languages most asked for), DejaVu fonts for text drawn
# into PDFs and images.
DEBIAN_PACKAGES+=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa tesseract-ocr-deu tesseract-ocr-fra fonts-dejavu-core)
# Tests open translated OOXML files with LibreOffice (headless, no GUI), read PDFs with pdftotext, check XLIFF with xmllint.
[ "$WITH_TEST" = 1 ] && DEBIAN_PACKAGES+=(libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui libxml2-utils poppler-utils)
# The web page's end-to-end tests drive Debian's Chromium (headless) with playwright-core.
[ "$WITH_TEST" = 1 ] && DEBIAN_PACKAGES+=(chromium)
# The model install tests compress generated models with zstd, as Mozilla's index serves them.
[ "$WITH_TEST" = 1 ] && DEBIAN_PACKAGES+=(zstd)
# The backup test dumps and restores PostgreSQL with pg_dump/pg_restore (a PostgreSQL already running elsewhere
# leaves them out otherwise).
[ "$WITH_TEST" = 1 ] && DEBIAN_PACKAGES+=(postgresql-client)
# The cluster test puts HAProxy in front of two Tolk nodes; the proxy test loads deploy/nginx.conf and
# deploy/haproxy.cfg (`nginx -t`, `haproxy -c`). Debian starts nginx's default site on port 80 when it installs it:
# `systemctl disable --now nginx` where that port is wanted for something else.
[ "$WITH_TEST" = 1 ] && DEBIAN_PACKAGES+=(haproxy nginx)
# /v2/write/correct: Hunspell and its dictionaries, one warm `hunspell -a` process per language.
DEBIAN_PACKAGES+=(hunspell hunspell-en-us hunspell-en-gb hunspell-de-de hunspell-es hunspell-fr hunspell-it
  hunspell-pt-pt hunspell-pt-br)

need_node() {
  if ! command -v node >/dev/null 2>&1; then
    echo "Tolk needs Node.js 20 or newer (with npm); install it first." >&2
    exit 1
  fi
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 20 ]; then
    echo "Tolk needs Node.js 20 or newer; found $(node --version)." >&2
    exit 1
  fi
}

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$WITH_TEST" = 1 ] && ! (command -v pg_isready >/dev/null && pg_isready -h 127.0.0.1 -p 5432 -q); then
  command -v pg_ctlcluster >/dev/null 2>&1 || missing+=(postgresql)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

need_node
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # npm ci refuses this lock file: sentencex names optional binaries for other platforms that the registry does not
  # have, so the lock cannot record them. npm install then installs exactly the locked versions all the same.
  npm ci --no-audit --no-fund 2>/dev/null || npm install --no-audit --no-fund
fi

if [ "$WITH_TEST" = 1 ]; then
  # The tests talk to a real PostgreSQL; start the local cluster when none answers.
  if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start || $SUDO pg_ctlcluster "$version" main start
    for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
  fi
  # Make sure the test role and database exist; a fresh cluster gets a password for TCP logins.
  if ! psql "${TOLK_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}" -qtAc 'select 1' >/dev/null 2>&1; then
    "${AS_POSTGRES[@]}" psql -qtAc "ALTER USER postgres PASSWORD 'tolk'" >/dev/null
    "${AS_POSTGRES[@]}" psql -qtAc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1 ||
      "${AS_POSTGRES[@]}" createdb test
    # npm test reads this file when TOLK_TEST_POSTGRES_URL is not set.
    echo "postgres://postgres:tolk@127.0.0.1:5432/test" > .tolk-test-postgres-url
  fi
fi

if [ -n "$MODELS" ]; then
  # Neural models from the index Firefox reads (TOLK_MODELS_INDEX_URL to use another). A machine that cannot reach it
  # (CI, offline) still gets a working install: Apertium serves until the models are installed later.
  npm run build --silent
  if [ "$MODELS" = common ]; then model_args=(--common); else IFS=',' read -r -a model_args <<< "$MODELS"; fi
  if index_error=$(node dist/src/cli.js models available 2>&1 >/dev/null); then
    node dist/src/cli.js models install "${model_args[@]}"
  else
    echo "Skipping the neural models: ${index_error#tolk: }"
    echo "Install them once the index is reachable: node dist/src/cli.js models install ${model_args[*]}"
  fi
fi
