$Env:PATH = 'C:\libs\cudnn 8.1 (CUDA 11.2)\bin;C:\Windows\System32;C:\Users\O''Brien\bin'
$Env:CUDNN_PATH = 'C:\libs\cudnn 8.1 (CUDA 11.2)'
$Env:CUDNNENV_ACTIVE = 'cudnn-8.1'
$Env:_CUDNNENV_STATE = '1;PPATH=C:\libs\cudnn 8.1 (CUDA 11.2)\bin;UCUDNN_PATH;UCUDNNENV_ACTIVE'
