# cudnnenv shell integration for fish, printed by `cudnnenv init fish`.
# Add to ~/.config/fish/config.fish:  cudnnenv init fish | source
# - `cudnnenv use|activate|deactivate` change this shell (their output is sourced);
# - the shims folder goes first on PATH;
# - when PWD changes, a hook follows .cudnnenv.toml: it looks for the nearest
#   project file with fish's own tests, and runs cudnnenv only when that file
#   (or CUDNNENV_VERSION) is not the one it saw.
set -gx CUDNNENV_SHELL fish
if not contains -- @SHIMS@ $PATH
    set -gx PATH @SHIMS@ $PATH
end

function cudnnenv
    switch "$argv[1]"
        case use activate deactivate
            set -l out (command @PROGRAM@ $argv | string collect)
            set -l rc $pipestatus[1]  # cudnnenv's own (string collect fails on empty output)
            test $rc -eq 0; or return $rc
            printf '%s\n' $out | source
            if test "$argv[1]" = activate
                set -g _CUDNNENV_PWD $PWD  # the activation holds (CUDNNENV_ACTIVATED) until deactivate
                set -g _CUDNNENV_SEEN "$CUDNNENV_VERSION"
            else
                # use (--local/--global changed files) or deactivate: what is selected now, at once
                set -g _CUDNNENV_PWD
                set -e _CUDNNENV_PROJECT
                _cudnnenv_hook
            end
            return 0
        case '*'
            command @PROGRAM@ $argv
    end
end

function _cudnnenv_hook --on-variable PWD --on-event fish_prompt
    if test "$PWD" = "$_CUDNNENV_PWD"; and test "$CUDNNENV_VERSION" = "$_CUDNNENV_SEEN"
        return 0
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
    if set -q _CUDNNENV_PROJECT; and test "$file" = "$_CUDNNENV_PROJECT"; and test "$CUDNNENV_VERSION" = "$_CUDNNENV_SEEN"
        return 0
    end
    set -g _CUDNNENV_PROJECT "$file"
    set -g _CUDNNENV_SEEN "$CUDNNENV_VERSION"
    command @PROGRAM@ hook --shell fish | source
end
_cudnnenv_hook
