# cudnnenv shell integration for fish, printed by `cudnnenv init fish`.
# Add to ~/.config/fish/config.fish:  cudnnenv init fish | source
# - `cudnnenv use|activate|deactivate` change this shell: the function runs
#   `cudnnenv __script fish ...`, which prints only a script (help and errors
#   go to stderr), and sources it only when it starts with cudnnenv's marker;
# - the shims folder goes first on PATH;
# - when PWD changes, and before each prompt, a hook follows .cudnnenv.toml:
#   it looks for the nearest project file with fish's own tests when the
#   folder changed, reads that file (no process) to notice an edit, and runs
#   cudnnenv only when the file, its text, CUDNNENV_VERSION,
#   CUDNNENV_ACTIVATED or _CUDNNENV_STATE is not the one it saw (another
#   door, a conda hook, changed what is active).
set -gx CUDNNENV_SHELL fish
if not contains -- @SHIMS@ $PATH
    set -gx PATH @SHIMS@ $PATH
end

# Sources $argv[1] when cudnnenv marked it as a script; prints anything else
# as text. Returns 1 when there was no script.
function _cudnnenv_eval
    if string match -q -- '# cudnnenv script*' "$argv[1]"
        printf '%s\n' $argv[1] | source
        return 0
    end
    test -n "$argv[1]"; and printf '%s\n' $argv[1]
    return 1
end

function cudnnenv
    switch "$argv[1]"
        case use activate deactivate
            # A pipe into read, not a command substitution: fish gives a command
            # substitution its own stderr, so `cudnnenv use -h 2> file` would miss.
            command @PROGRAM@ __script fish $argv | read -z -l out
            set -l rc $pipestatus[1]  # cudnnenv's own (read fails on empty output)
            test $rc -eq 0; or return $rc
            _cudnnenv_eval "$out"; or return 0  # --help: nothing changes
            if test "$argv[1]" = activate
                set -g _CUDNNENV_PWD $PWD  # the activation holds (CUDNNENV_ACTIVATED) until deactivate
                set -g _CUDNNENV_SEEN "$CUDNNENV_VERSION|$CUDNNENV_ACTIVATED|$_CUDNNENV_STATE"
            else
                # use (--local/--global changed files) or deactivate: what is selected now, at once
                set -g _CUDNNENV_PWD
                set -e _CUDNNENV_PROJECT
                _cudnnenv_hook
            end
            return 0
        case trust untrust install adopt remove sync
            # The project's [env] may now apply, or stop applying; a tree or a runtime came or went: the
            # hook looks again.
            command @PROGRAM@ $argv; or return
            set -g _CUDNNENV_PWD
            set -e _CUDNNENV_PROJECT
            _cudnnenv_hook
        case '*'
            command @PROGRAM@ $argv
    end
end

# The project file's text and its lock's (cudnnenv.lock beside it), at most 64 KiB each, read by fish
# itself; a file of size 0 is not (every file under /proc says 0, and a read of /proc/kmsg never returns):
# cudnnenv's own bounded reader reads it.
function _cudnnenv_read
    set -l text
    test -n "$argv[1]"; or return 0
    if test -s "$argv[1]"
        read -z -n 65536 text < $argv[1] 2>/dev/null
    end
    set -l lock (string replace -r '/[^/]*$' '' -- "$argv[1]")/cudnnenv.lock
    if test -s "$lock"
        set -l locked
        read -z -n 65536 locked < $lock 2>/dev/null
        set text "$text|lock|$locked"
    end
    printf '%s' "$text"
end

function _cudnnenv_hook --on-variable PWD --on-event fish_prompt
    if test "$PWD" = "$_CUDNNENV_PWD"; and test "$CUDNNENV_VERSION|$CUDNNENV_ACTIVATED|$_CUDNNENV_STATE" = "$_CUDNNENV_SEEN"
        set -q _CUDNNENV_PROJECT; and test -z "$_CUDNNENV_PROJECT"; and return 0
        set -l text (_cudnnenv_read "$_CUDNNENV_PROJECT" | string collect)
        test "$text" = "$_CUDNNENV_TEXT"; and return 0
    end
    set -g _CUDNNENV_PWD $PWD
    set -l dir $PWD
    set -l file
    while true
        if test -f "$dir/.cudnnenv.toml"
            set file "$dir/.cudnnenv.toml"
            break
        end
        test -z "$dir"; and break
        set dir (string replace -r '/[^/]*$' '' -- $dir)
    end
    set -l text (_cudnnenv_read "$file" | string collect)
    if set -q _CUDNNENV_PROJECT; and test "$file" = "$_CUDNNENV_PROJECT"; and test "$text" = "$_CUDNNENV_TEXT"; and test "$CUDNNENV_VERSION|$CUDNNENV_ACTIVATED|$_CUDNNENV_STATE" = "$_CUDNNENV_SEEN"
        return 0
    end
    set -g _CUDNNENV_PROJECT "$file"
    set -g _CUDNNENV_TEXT "$text"
    command @PROGRAM@ __script fish hook | read -z -l out
    _cudnnenv_eval "$out"
    set -g _CUDNNENV_SEEN "$CUDNNENV_VERSION|$CUDNNENV_ACTIVATED|$_CUDNNENV_STATE"
    return 0
end
_cudnnenv_hook
