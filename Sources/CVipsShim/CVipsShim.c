#include "CVipsShim.h"
#include <vips/vips.h>

int cvips_init(const char *argv0) {
    return VIPS_INIT(argv0);
}
