# cudnnenv shell integration for bash and zsh, printed by `cudnnenv init bash|zsh`.
# Add to ~/.bashrc (or ~/.zshrc):  eval "$(cudnnenv init bash)"
# - `cudnnenv use|activate|deactivate` change this shell (their output is evaluated);
# - the shims folder goes first on PATH;
# - before each prompt, a hook follows .cudnnenv.toml: when the folder changes,
#   it looks for the nearest project file with shell tests only, and runs
#   cudnnenv only when that file (or CUDNNENV_VERSION) is not the one it saw.
export CUDNNENV_SHELL=@SHELL@
case ":${PATH}:" in
  *:@SHIMS@:*) ;;
  *) export PATH=@SHIMS@"${PATH:+:${PATH}}" ;;
esac

cudnnenv() {
  case "${1-}" in
    use | activate | deactivate)
      local _cudnnenv_out _cudnnenv_rc
      _cudnnenv_out="$(command @PROGRAM@ "$@")"
      _cudnnenv_rc=$?
      if [ $_cudnnenv_rc -ne 0 ]; then return $_cudnnenv_rc; fi
      eval "$_cudnnenv_out"
      if [ "$1" = activate ]; then
        _CUDNNENV_PWD=$PWD  # the activation holds (CUDNNENV_ACTIVATED) until deactivate
        _CUDNNENV_SEEN="${CUDNNENV_VERSION-}"
      else
        # use (--local/--global changed files) or deactivate: what is selected now, at once
        _CUDNNENV_PWD= _CUDNNENV_SEEN="${CUDNNENV_VERSION-}"
        unset _CUDNNENV_PROJECT
        _cudnnenv_hook
      fi
      ;;
    *) command @PROGRAM@ "$@" ;;
  esac
}

_cudnnenv_hook() {
  # The no-change path: two comparisons, no process.
  if [ "${PWD}" = "${_CUDNNENV_PWD-}" ] && [ "${CUDNNENV_VERSION-}" = "${_CUDNNENV_SEEN-}" ]; then
    return 0
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
  if [ -n "${_CUDNNENV_PROJECT+set}" ] && [ "${_cudnnenv_file}" = "${_CUDNNENV_PROJECT}" ] &&
    [ "${CUDNNENV_VERSION-}" = "${_CUDNNENV_SEEN-}" ]; then
    return 0
  fi
  _CUDNNENV_PROJECT=${_cudnnenv_file}
  _CUDNNENV_SEEN=${CUDNNENV_VERSION-}
  eval "$(command @PROGRAM@ hook --shell @SHELL@)"
}
