@rem What the `cudnnenv` doskey macro runs: use, activate and deactivate
@rem change this cmd session (cudnnenv prints a batch file, this calls it);
@rem everything else is cudnnenv itself. cmd has no prompt hook: after `use`
@rem and `deactivate`, what is selected then is activated at once.
@if /i "%~1"=="use" goto shell
@if /i "%~1"=="activate" goto shell
@if /i "%~1"=="deactivate" goto shell
@"@PROGRAM_CMD@" %*
@exit /b %errorlevel%
:shell
@set "_CUDNNENV_SCRIPT=%TEMP%\cudnnenv-%RANDOM%%RANDOM%.bat"
@if /i "%~1"=="use" ("@PROGRAM_CMD@" %* > "%_CUDNNENV_SCRIPT%") else ("@PROGRAM_CMD@" %* --shell cmd > "%_CUDNNENV_SCRIPT%")
@if errorlevel 1 (del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT=" & exit /b 1)
@call "%_CUDNNENV_SCRIPT%"
@if /i not "%~1"=="activate" "@PROGRAM_CMD@" hook --shell cmd > "%_CUDNNENV_SCRIPT%" && call "%_CUDNNENV_SCRIPT%"
@del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT="
