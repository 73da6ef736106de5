#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H
// Non-variadic wrappers over libvips, which Swift cannot call directly.
// Returns 0 when libvips started.
int cvips_init(const char *argv0);
#endif
