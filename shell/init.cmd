@rem cudnnenv integration for cmd, written by `cudnnenv init cmd` and run at
@rem every cmd start by the AutoRun entry `cudnnenv init cmd --autorun` adds
@rem (or by hand: call this file). It defines the `cudnnenv` doskey macro,
@rem which runs cudnnenv.bat beside this file, and puts the shims first on PATH.
@set "CUDNNENV_SHELL=cmd"
@doskey cudnnenv="%~dp0cudnnenv.bat" $*
@echo ;%PATH%; | find /i ";@SHIMS_CMD@;" >nul || set "PATH=@SHIMS_CMD@;%PATH%"
