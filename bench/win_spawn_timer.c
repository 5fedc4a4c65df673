/* The Windows twin of spawn_timer.c, for bench/wine_shim_overhead.sh: times
 * CreateProcessW + wait of each program, interleaved round by round, inside
 * one process (so Wine's own start of this timer is not counted). Prints the
 * median and the 10th/90th percentiles per program in microseconds.
 * Usage: win_spawn_timer ROUNDS PROGRAM ARGS ::: PROGRAM ARGS ... */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int wmain(int argc, wchar_t** argv) {
  if (argc < 3) {
    fwprintf(stderr, L"usage: %ls ROUNDS PROGRAM [ARGS] ::: PROGRAM [ARGS] ...\n", argv[0]);
    return 2;
  }
  const int rounds = _wtoi(argv[1]);
  wchar_t lines[16][4096];
  wchar_t names[16][1024];
  int count = 0;
  lines[0][0] = L'\0';
  for (int i = 2; i < argc && count < 16; ++i) {
    if (wcscmp(argv[i], L":::") == 0) {
      ++count;
      lines[count][0] = L'\0';
      continue;
    }
    if (lines[count][0] == L'\0') wcsncpy(names[count], argv[i], 1023);
    wcscat(lines[count], L"\"");
    wcscat(lines[count], argv[i]);
    wcscat(lines[count], L"\" ");
  }
  ++count;
  double* times = calloc((size_t)rounds * count, sizeof(double));
  LARGE_INTEGER frequency;
  QueryPerformanceFrequency(&frequency);
  for (int round = 0; round < rounds; ++round) {
    for (int c = 0; c < count; ++c) {
      STARTUPINFOW startup = {sizeof startup};
      PROCESS_INFORMATION process;
      wchar_t line[4096];
      wcscpy(line, lines[c]);
      LARGE_INTEGER start, end;
      QueryPerformanceCounter(&start);
      if (!CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &startup, &process)) {
        fwprintf(stderr, L"cannot start %ls: error %lu\n", names[c], GetLastError());
        return 1;
      }
      WaitForSingleObject(process.hProcess, INFINITE);
      QueryPerformanceCounter(&end);
      CloseHandle(process.hThread);
      CloseHandle(process.hProcess);
      times[c * rounds + round] = (double)(end.QuadPart - start.QuadPart) * 1e6 / (double)frequency.QuadPart;
    }
  }
  for (int c = 0; c < count; ++c) {
    double* t = &times[c * rounds];
    qsort(t, (size_t)rounds, sizeof(double), compare);
    wprintf(L"%-60ls median %7.0f us  p10 %7.0f  p90 %7.0f\n", names[c], t[rounds / 2], t[rounds / 10],
            t[rounds * 9 / 10]);
  }
  return 0;
}
