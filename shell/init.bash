# cudnnenv shell integration for bash and zsh, printed by `cudnnenv init bash|zsh`.
# Add to ~/.bashrc (or ~/.zshrc):  eval "$(cudnnenv init bash)"
# - `cudnnenv use|activate|deactivate` change this shell: the function runs
#   `cudnnenv __script SHELL ...`, which prints only a script (help and errors
#   go to stderr), and evaluates it only when it starts with cudnnenv's marker;
# - the shims folder goes first on PATH;
# - before each prompt, a hook follows .cudnnenv.toml: when the folder changes,
#   it looks for the nearest project file with shell tests only; in a project,
#   it reads that file (no process) to notice an edit; it runs cudnnenv only
#   when the file, its text, CUDNNENV_VERSION, CUDNNENV_ACTIVATED or
#   _CUDNNENV_STATE is not the one it saw (another door, a conda or Lmod
#   hook, changed what is active).
export CUDNNENV_SHELL=@SHELL@
case ":${PATH}:" in
  *:@SHIMS@:*) ;;
  *) export PATH=@SHIMS@"${PATH:+:${PATH}}" ;;
esac

# Evaluates $1 when cudnnenv marked it as a script; prints anything else as
# text. Returns 1 when there was no script.
_cudnnenv_eval() {
  case "$1" in
    '# cudnnenv script'*) eval "$1" ;;
    '') return 1 ;;
    *) printf '%s\n' "$1"; return 1 ;;
  esac
}

cudnnenv() {
  case "${1-}" in
    use | activate | deactivate)
      local _cudnnenv_out _cudnnenv_rc _cudnnenv_arg
      # `activate|deactivate --shell SHELL` asks for the script itself (eval "$(cudnnenv activate X --shell
      # bash)", direnv, conda's hooks): printed for the caller, as without the integration, never evaluated
      # here (in $(...) that would change only the subshell); the hook sees the change at the next prompt.
      if [ "$1" != use ]; then
        for _cudnnenv_arg in "$@"; do
          case "$_cudnnenv_arg" in --shell | --shell=*) command @PROGRAM@ "$@"; return ;; esac
        done
      fi
      _cudnnenv_out="$(command @PROGRAM@ __script @SHELL@ "$@")"
      _cudnnenv_rc=$?
      if [ $_cudnnenv_rc -ne 0 ]; then return $_cudnnenv_rc; fi
      _cudnnenv_eval "$_cudnnenv_out" || return 0  # --help: nothing changes
      if [ "$1" = activate ]; then
        _CUDNNENV_PWD=$PWD  # the activation holds (CUDNNENV_ACTIVATED) until deactivate
        _CUDNNENV_SEEN="${CUDNNENV_VERSION-}|${CUDNNENV_ACTIVATED-}|${_CUDNNENV_STATE-}"
      else
        # use (--local/--global changed files) or deactivate: what is selected now, at once
        _CUDNNENV_PWD=
        unset _CUDNNENV_PROJECT
        _cudnnenv_hook
      fi
      ;;
    trust | untrust | install | adopt | remove | sync)
      # The project's [env] may now apply, or stop applying; a tree or a runtime came or went: the hook
      # looks again.
      command @PROGRAM@ "$@" || return
      _CUDNNENV_PWD=
      unset _CUDNNENV_PROJECT
      _cudnnenv_hook
      ;;
    *) command @PROGRAM@ "$@" ;;
  esac
}

# _cudnnenv_read_project FILE: the project file's text and its lock's (cudnnenv.lock beside it), at most
# 64 KiB each, into the caller's _cudnnenv_text, read by the shell itself (bash: read -N, zsh: read -k); a file
# of size 0 is not (every file under /proc says 0, and a read of /proc/kmsg never returns): cudnnenv's own
# bounded reader reads it when the folder changes.
_cudnnenv_read_project() {
  local _cudnnenv_lock= _cudnnenv_locked=${1%/*}/cudnnenv.lock
  _cudnnenv_text=
  [ -r "$1" ] && [ -s "$1" ] && { @READ@ < "$1" || :; }
  if [ -r "${_cudnnenv_locked}" ] && [ -s "${_cudnnenv_locked}" ]; then
    { @READ_LOCK@ < "${_cudnnenv_locked}" || :; }
    _cudnnenv_text="${_cudnnenv_text}|lock|${_cudnnenv_lock}"
  fi
}

_cudnnenv_hook() {
  local _cudnnenv_text=
  # The no-change path: two comparisons, and in a project one read of its file and of its lock; no process.
  if [ "${PWD}" = "${_CUDNNENV_PWD-}" ] && [ "${CUDNNENV_VERSION-}|${CUDNNENV_ACTIVATED-}|${_CUDNNENV_STATE-}" = "${_CUDNNENV_SEEN-}" ]; then
    [ -z "${_CUDNNENV_PROJECT-}" ] && return 0
    _cudnnenv_read_project "${_CUDNNENV_PROJECT}"
    [ "${_cudnnenv_text}" = "${_CUDNNENV_TEXT-}" ] && return 0
  fi
  _CUDNNENV_PWD=$PWD
  local _cudnnenv_dir=$PWD _cudnnenv_file=
  while :; do
    if [ -f "${_cudnnenv_dir}/.cudnnenv.toml" ]; then
      _cudnnenv_file=${_cudnnenv_dir}/.cudnnenv.toml
      break
    fi
    [ -z "${_cudnnenv_dir}" ] && break
    _cudnnenv_dir=${_cudnnenv_dir%/*}
  done
  _cudnnenv_text=
  [ -n "${_cudnnenv_file}" ] && _cudnnenv_read_project "${_cudnnenv_file}"
  if [ -n "${_CUDNNENV_PROJECT+set}" ] && [ "${_cudnnenv_file}" = "${_CUDNNENV_PROJECT}" ] &&
    [ "${_cudnnenv_text}" = "${_CUDNNENV_TEXT-}" ] && [ "${CUDNNENV_VERSION-}|${CUDNNENV_ACTIVATED-}|${_CUDNNENV_STATE-}" = "${_CUDNNENV_SEEN-}" ]; then
    return 0
  fi
  _CUDNNENV_PROJECT=${_cudnnenv_file}
  _CUDNNENV_TEXT=${_cudnnenv_text}
  _cudnnenv_eval "$(command @PROGRAM@ __script @SHELL@ hook)" || :
  _CUDNNENV_SEEN="${CUDNNENV_VERSION-}|${CUDNNENV_ACTIVATED-}|${_CUDNNENV_STATE-}"
}
