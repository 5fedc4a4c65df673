@rem cudnnenv integration for cmd, written by `cudnnenv init cmd` and run at
@rem every cmd start by the AutoRun entry `cudnnenv init cmd --autorun` adds
@rem (or by hand: call this file). It defines the `cudnnenv` doskey macro,
@rem which runs cudnnenv.bat beside this file, and puts the shims first on PATH.
@rem Only ASCII here: cmd reads a batch file in the console's code page, so
@rem the store's folder, whatever its letters, is this file's (%~dp0).
@set "CUDNNENV_SHELL=cmd"
@doskey cudnnenv="%~dp0cudnnenv.bat" $*
@for %%i in ("%~dp0..\shims") do @set "_CUDNNENV_SHIMS=%%~fi"
@if /i not "%_CUDNNENV_SHIMS_ON_PATH%"=="%_CUDNNENV_SHIMS%" (set "PATH=%_CUDNNENV_SHIMS%;%PATH%" & set "_CUDNNENV_SHIMS_ON_PATH=%_CUDNNENV_SHIMS%")
@set "_CUDNNENV_SHIMS="
