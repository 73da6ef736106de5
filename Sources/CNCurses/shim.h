#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H
// Wide-character ncurses: cchar_t, add_wch, get_wch, setcchar, alloc_pair.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#endif
