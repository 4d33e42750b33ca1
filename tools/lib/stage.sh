# Sourced by tools/setup, tools/build-llama-tools and tools/install-home-assistant: a long stage's
# output (cmake, ninja, pip, swift build) goes to a log file under .deps/, and the terminal gets one
# progress line: ninja's [n/N] as a live count on a terminal, a line every 15 s otherwise. When the
# stage fails, the end of its log is shown with the log's path.
#
#   stage LOG "what it does" COMMAND [ARGS…]

stage_progress() {
    local label="$1" log="$2" line last=$SECONDS shown=0
    while IFS= read -r line; do
        printf '%s\n' "$line" >>"$log"
        [[ "$line" =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
        if [ -t 2 ]; then
            printf '\r\033[K%s [%s/%s]' "$label" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" >&2
            shown=1
        elif ((SECONDS - last >= 15)); then
            last=$SECONDS
            printf '%s [%s/%s]\n' "$label" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" >&2
        fi
    done
    if ((shown)); then printf '\r\033[K' >&2; fi
}

stage() {
    local log="$1" label="$2"
    shift 2
    mkdir -p "$(dirname "$log")"
    local status=0
    "$@" </dev/null 2>&1 | stage_progress "$label" "$log" || status=$?
    # The command's own status (the pipe's last stage only reads).
    [ "${PIPESTATUS[0]}" = 0 ] && [ "$status" = 0 ] && return 0
    echo "$label: FAILED; the end of its log:" >&2
    tail -n 40 "$log" >&2
    echo "(the whole log: $log)" >&2
    exit 1
}
