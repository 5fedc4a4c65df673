@rem @VERB@s the cudnnenv profile named by this file's folder, in this cmd
@rem (`call` this file), with no integration loaded; written by `cudnnenv
@rem profile generate`. Only ASCII here: cmd reads a batch file in the
@rem console's code page, so the store (ROOT\.cudnnenv\profiles\NAME) and
@rem the profile's name are this file's folders, found when it runs, and
@rem cudnnenv as the next line says. Exit code 1 when cudnnenv failed.
@PROGRAM_LINE@
@set "_CUDNNENV_SCRIPT=%TEMP%\cudnnenv-%RANDOM%%RANDOM%.bat"
@for %%i in ("%~dp0..\..\..") do @set "_CUDNNENV_ROOT=%%~fi"
@for %%i in ("%~dp0.") do @set "_CUDNNENV_PROFILE=%%~nxi"
@"%_CUDNNENV_EXE%" --root "%_CUDNNENV_ROOT%" @COMMAND@ --shell cmd > "%_CUDNNENV_SCRIPT%"
@if errorlevel 1 goto cudnnenv_failed
@call "%_CUDNNENV_SCRIPT%"
@del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT=" & set "_CUDNNENV_ROOT=" & set "_CUDNNENV_PROFILE=" & set "_CUDNNENV_EXE="
@exit /b 0
:cudnnenv_failed
@del "%_CUDNNENV_SCRIPT%" 2>nul & set "_CUDNNENV_SCRIPT=" & set "_CUDNNENV_ROOT=" & set "_CUDNNENV_PROFILE=" & set "_CUDNNENV_EXE="
@exit /b 1
