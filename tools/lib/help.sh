# Sourced by the tools/ scripts: one convention for all of them.
#   script_help "$@"           --help or -h prints the script's header comment (its usage) and exits 0
#   script_no_options "$@"     a script that takes no options: any argument is an error (exit 2)
script_help() {
    local a
    for a in "$@"; do
        case "$a" in
            -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        esac
    done
}

script_no_options() {
    if (($#)); then
        echo "$(basename "$0"): unknown option $1 (see $(basename "$0") --help)" >&2
        exit 2
    fi
}
