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
#include <langinfo.h>
#include <wchar.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

// Swift imports neither function-like macros nor C globals safely under Swift 6
// concurrency checking, so the few we need are wrapped in tiny inline functions.

static inline WINDOW *cn_stdscr(void) { return stdscr; }
/// Starts curses on the process's own stdin/stdout; NULL (not exit) when the terminal is unknown.
static inline SCREEN *cn_newterm(void) { return newterm(NULL, stdout, stdin); }
static inline int cn_lines(void) { return LINES; }
static inline int cn_cols(void) { return COLS; }
static inline int cn_colors(void) { return COLORS; }
static inline int cn_color_pairs(void) { return COLOR_PAIRS; }

static inline attr_t cn_a_bold(void) { return A_BOLD; }
static inline attr_t cn_a_dim(void) { return A_DIM; }
static inline attr_t cn_a_italic(void) { return A_ITALIC; }
static inline attr_t cn_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cn_a_reverse(void) { return A_REVERSE; }

static inline mmask_t cn_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t cn_button5_pressed(void) { return BUTTON5_PRESSED; }

/// The wheel bits of the next mouse event, or 0 when there is none.
static inline mmask_t cn_mouse_state(void) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    return event.bstate;
}

/// Draws one complex character (a spacing character plus up to four combining ones)
/// at row `y`, column `x`, with an extended colour pair. Returns ERR if `setcchar` refuses
/// the text; the add's own result is ignored, since adding to the bottom-right corner
/// reports ERR (the cursor cannot advance) although the cell is drawn.
static inline int cn_put(int y, int x, const wchar_t *text, attr_t attributes, int pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attributes, 0, &pair) != OK) return ERR;
    (void)mvwadd_wch(stdscr, y, x, &cell);
    return OK;
}

/// The C library's idea of a character's width in the current locale (-1: not printable).
static inline int cn_wcwidth(wchar_t c) { return wcwidth(c); }

/// The size of the terminal on `fd`, as the kernel reports it after SIGWINCH.
static inline int cn_window_size(int fd, int *rows, int *cols) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *rows = size.ws_row;
    *cols = size.ws_col;
    return 0;
}

/// The terminal's size in pixels as the kernel reports it (0 when the terminal does not say).
static inline int cn_window_pixels(int fd, int *width, int *height) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *width = size.ws_xpixel;
    *height = size.ws_ypixel;
    return 0;
}

/// Whether terminfo has an entry for `term`, checked without starting curses.
static inline int cn_terminfo_exists(const char *term) {
    int error = 0;
    TERMINAL *previous = cur_term;
    if (setupterm(term, 1, &error) != OK) return 0;
    TERMINAL *probe = cur_term;
    set_curterm(previous);
    del_curterm(probe);
    return 1;
}

/// The number of colours terminfo promises for `term` (or $TERM), read without
/// starting curses; -1 when the terminal has no colours or is unknown.
static inline int cn_terminfo_colors(const char *term) {
    int error = 0;
    TERMINAL *previous = cur_term;
    if (setupterm(term, 1, &error) != OK) return -1;
    int colors = tigetnum("colors");
    TERMINAL *probe = cur_term;
    set_curterm(previous);
    del_curterm(probe);
    return colors;
}

// On a crash (a Swift trap is SIGILL or SIGTRAP), put the terminal back before dying,
// then let the previous handler (Swift's backtracer, or the default) report it on the
// restored screen: the faulting instruction runs again once this handler returns.
// A signal this process raised (abort) goes on to the previous handler as well, raised again.
// The same signal sent by another process (kill -SEGV) has no instruction to run again and no
// crash to report: it gets the default action, and the process dies of it as it would without
// handlers. (Swift's backtracer would report a crash and then let the process go on.)
// endwin is not async-signal-safe, but the process is going down either way.
#define CN_CRASH_SIGNAL_LIMIT 32
static const int cn_crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };

/// The handlers in place before ours (storage inside a function, so it is emitted with it).
static inline struct sigaction *cn_crash_previous(void) {
    static struct sigaction previous[CN_CRASH_SIGNAL_LIMIT];
    return previous;
}

static inline void cn_crash_handler(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    endwin();
    // si_code <= 0: sent by kill, tgkill or raise, not by a fault. A raised signal is blocked
    // until this handler returns, then delivered to the handler in place.
    int sent = info != NULL && info->si_code <= 0;
    if (sent && info->si_pid != getpid()) {
        signal(signal_number, SIG_DFL);
        raise(signal_number);
        return;
    }
    if (signal_number > 0 && signal_number < CN_CRASH_SIGNAL_LIMIT) {
        sigaction(signal_number, &cn_crash_previous()[signal_number], NULL);
    }
    if (sent) {
        raise(signal_number);
    }
}

static inline void cn_install_crash_restore(void) {
    for (unsigned i = 0; i < sizeof cn_crash_signals / sizeof cn_crash_signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = cn_crash_handler;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_ONSTACK | SA_SIGINFO;
        sigaction(cn_crash_signals[i], &action, &cn_crash_previous()[cn_crash_signals[i]]);
    }
}

static inline void cn_remove_crash_restore(void) {
    for (unsigned i = 0; i < sizeof cn_crash_signals / sizeof cn_crash_signals[0]; i++) {
        sigaction(cn_crash_signals[i], &cn_crash_previous()[cn_crash_signals[i]], NULL);
    }
}

#endif
