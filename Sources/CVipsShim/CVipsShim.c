// The real libvips, GLib and libchafa headers give every function its exact type; nothing here
// links against those libraries. lib holds one pointer per function, filled by dlsym when the
// first image is touched (load_vips, once per process), and libchafa's when the first thumbnail
// is drawn (load_chafa).
#define _GNU_SOURCE  // dladdr
#include <vips/vips.h>
#include <chafa.h>
#include "CVipsShim.h"
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define VIPS_FUNCTIONS(X) \
    X(vips_init) X(vips_version) X(vips_concurrency_set) X(vips_cache_set_max) X(vips_cache_set_max_mem) \
    X(vips_cache_set_max_files) X(vips_image_get_width) X(vips_image_get_height) X(vips_image_get_bands) \
    X(vips_image_get_format) X(vips_image_get_interpretation) X(vips_image_get_orientation) \
    X(vips_image_hasalpha) X(vips_image_get_n_pages) X(vips_image_get_typeof) X(vips_image_guess_interpretation) \
    X(vips_image_write_to_memory) X(vips_image_new_from_source) X(vips_image_new_from_buffer) \
    X(vips_source_new_from_file) X(vips_source_new_from_memory) X(vips_foreign_find_load_source) \
    X(vips_foreign_find_load_buffer) X(vips_jpegload_source) X(vips_jpegsave_buffer) X(vips_thumbnail_source) \
    X(vips_thumbnail_image) X(vips_thumbnail_buffer) X(vips_icc_transform) X(vips_colourspace) X(vips_cast_uchar) \
    X(vips_flatten) X(vips_extract_band) X(vips_array_double_newv) X(vips_area_unref) X(vips_error) \
    X(vips_error_clear) X(vips_error_buffer_copy) X(vips_enum_nick) X(vips_interpretation_get_type) \
    X(vips_band_format_get_type) X(vips_guess_libdir) \
    X(g_log_set_handler) X(g_object_ref) X(g_object_unref) X(g_free) X(g_string_free) \
    X(g_getenv) X(g_setenv) X(g_unsetenv) X(g_module_open) X(g_module_make_resident)

#define CHAFA_FUNCTIONS(X) \
    X(chafa_canvas_config_new) X(chafa_canvas_config_unref) X(chafa_canvas_config_set_symbol_map) \
    X(chafa_canvas_config_set_geometry) X(chafa_canvas_config_set_canvas_mode) X(chafa_canvas_config_set_pixel_mode) \
    X(chafa_symbol_map_new) X(chafa_symbol_map_unref) X(chafa_symbol_map_add_by_tags) X(chafa_symbol_map_remove_by_tags) \
    X(chafa_canvas_new) X(chafa_canvas_unref) X(chafa_canvas_draw_all_pixels) X(chafa_canvas_get_char_at) \
    X(chafa_canvas_get_raw_colors_at) X(chafa_canvas_config_set_cell_geometry) X(chafa_canvas_print) \
    X(chafa_term_db_get_default) X(chafa_term_db_get_fallback_info)

#define MEMBER(name) __typeof__(&name) name;
static struct {
    VIPS_FUNCTIONS(MEMBER)
    CHAFA_FUNCTIONS(MEMBER)
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_once_t chafa_once = PTHREAD_ONCE_INIT;
/// chafa's fallback terminal info (every pixel encoding), made once at load: read-only after.
static ChafaTermInfo *fallback_term_info;
static char load_error[256];

/// Opens a library by its soname and resolves `names` into `lib`; false with load_error set otherwise.
static int open_library(const char *soname, void **handle) {
    *handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!*handle) {
        snprintf(load_error, sizeof(load_error), "cannot load %s: %s", soname, dlerror());
        return 0;
    }
    return 1;
}

#define RESOLVE(name) \
    if (ok && !(lib.name = (__typeof__(lib.name))dlsym(handle, #name))) { \
        snprintf(load_error, sizeof(load_error), "%s has no %s", soname, #name); \
        ok = 0; \
    }

static void load_vips(void) {
    void *handle = NULL;
    const char *soname = "libvips.so.42";
    int ok = open_library(soname, &handle);
    // GLib's and GObject's functions are found through libvips' handle: they are its dependencies.
    VIPS_FUNCTIONS(RESOLVE)
}

/// libchafa only draws thumbnails: `foodpin add` scales a photo without it.
static void load_chafa(void) {
    void *handle = NULL;
    const char *soname = "libchafa.so.0";
    int ok = open_library(soname, &handle);
    CHAFA_FUNCTIONS(RESOLVE)
    if (!ok) {
        // A half-loaded chafa is no chafa: cchafa_canvas_new then returns NULL.
        lib.chafa_canvas_new = NULL;
        return;
    }
    fallback_term_info = lib.chafa_term_db_get_fallback_info(lib.chafa_term_db_get_default());
}

/// Loads libvips on first use. Returns 0 when it is usable.
static int ensure_loaded(void) {
    pthread_once(&load_once, load_vips);
    return lib.vips_init && lib.vips_band_format_get_type && lib.g_free && lib.g_module_make_resident ? 0 : -1;
}

/// Loads libchafa (after libvips, whose GLib it prints with) on first use. Returns 0 when usable.
static int ensure_chafa(void) {
    if (ensure_loaded()) {
        return -1;
    }
    pthread_once(&chafa_once, load_chafa);
    return lib.chafa_canvas_new ? 0 : -1;
}

const char *cvips_load_error(void) {
    return load_error[0] ? load_error : NULL;
}

static atomic_ulong warning_count;

static void count_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
    atomic_fetch_add(&warning_count, 1);
}

// MARK: Modules on demand
//
// vips_init loads every module in <libdir>/vips-modules-8.14 (HEIF, JPEG XL, ImageMagick, PDF,
// OpenSlide): with their own libraries, about 16 ms before the first pixel, for formats a photo
// rarely has. JPEG, PNG, WebP, GIF and TIFF are built into libvips. So vips_init is given a libdir
// with no modules, and load_modules opens the real ones the first time no built-in loader
// recognises a file: the same loaders as before, found one sniff later.

static pthread_once_t modules_once = PTHREAD_ONCE_INIT;
static atomic_int modules_loaded;
/// <directory of libvips.so.42>/vips-modules-<major>.<minor>: what vips_init would have searched.
static char modules_directory[1024];

/// Before vips_init: fills libvips' libdir cache (vips_guess_libdir keeps the first answer) with a
/// directory that has no modules, and remembers the real one. A user's VIPSHOME is left alone:
/// libvips then loads the modules of that prefix at start, as it always did.
static void defer_modules(void) {
    Dl_info info;
    if (lib.g_getenv("VIPSHOME") || !dladdr((void *)lib.vips_init, &info) || !info.dli_fname) {
        atomic_store(&modules_loaded, 1);
        return;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    int length = slash ? (int)(slash - info.dli_fname) : 1;
    snprintf(modules_directory, sizeof(modules_directory), "%.*s/vips-modules-%d.%d",
        length, slash ? info.dli_fname : ".", lib.vips_version(0), lib.vips_version(1));
    // vips_guess_libdir reads the prefix from the variable it is given and sets it when absent;
    // a variable of our own keeps VIPSHOME as the user left it. Removed again at once.
    static const char *const variable = "FOODPIN_VIPS_NO_MODULES";
    lib.g_setenv(variable, "/nonexistent/foodpin-vips-modules-on-demand", TRUE);
    lib.vips_guess_libdir("foodpin", variable);
    lib.g_unsetenv(variable);
}

static void load_modules_now(void) {
    DIR *directory = opendir(modules_directory);
    if (directory) {
        struct dirent *entry;
        while ((entry = readdir(directory))) {
            size_t length = strlen(entry->d_name);
            if (length < 4 || strcmp(entry->d_name + length - 3, ".so") != 0) {
                continue;
            }
            char path[2048];
            snprintf(path, sizeof(path), "%s/%s", modules_directory, entry->d_name);
            // As vips_init does: a module that fails is skipped; loaded ones add types, so they stay.
            GModule *module = lib.g_module_open(path, G_MODULE_BIND_LAZY);
            if (module) {
                lib.g_module_make_resident(module);
            }
        }
        closedir(directory);
    }
    atomic_store(&modules_loaded, 1);
}

/// Loads the format modules once. Returns 1 when this call loaded them (a failed search is worth
/// repeating), 0 when they were already in.
static int load_modules(void) {
    if (atomic_load(&modules_loaded)) {
        return 0;
    }
    pthread_once(&modules_once, load_modules_now);
    return 1;
}

int cvips_modules_loaded(void) {
    return atomic_load(&modules_loaded);
}

static const char *find_load_source(VipsSource *source) {
    const char *loader = lib.vips_foreign_find_load_source(source);
    if (!loader && load_modules()) {
        lib.vips_error_clear();
        loader = lib.vips_foreign_find_load_source(source);
    }
    return loader;
}

static const char *find_load_buffer(const void *data, size_t length) {
    const char *loader = lib.vips_foreign_find_load_buffer(data, length);
    if (!loader && load_modules()) {
        lib.vips_error_clear();
        loader = lib.vips_foreign_find_load_buffer(data, length);
    }
    return loader;
}

int cvips_init(const char *argv0) {
    if (ensure_loaded()) {
        return -2;
    }
    // VIPS_INIT's ABI check, through the loaded library.
    if (lib.vips_version(3) - lib.vips_version(5) != VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE) {
        snprintf(load_error, sizeof(load_error), "libvips.so.42 has ABI version %d, not %d",
            lib.vips_version(3) - lib.vips_version(5), VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE);
        return -2;
    }
    defer_modules();
    if (lib.vips_init(argv0)) {
        return -1;
    }
    lib.g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, count_warning, NULL);
    return 0;
}

unsigned long cvips_warning_count(void) {
    return atomic_load(&warning_count);
}

void cvips_configure(int concurrency, int cache_max_operations, size_t cache_max_memory, int cache_max_files) {
    lib.vips_concurrency_set(concurrency);
    lib.vips_cache_set_max(cache_max_operations);
    lib.vips_cache_set_max_mem(cache_max_memory);
    lib.vips_cache_set_max_files(cache_max_files);
}

static void fill_header(VipsImage *image, const char *loader, CVipsHeader *out) {
    memset(out, 0, sizeof(*out));
    out->width = lib.vips_image_get_width(image);
    out->height = lib.vips_image_get_height(image);
    out->bands = lib.vips_image_get_bands(image);
    out->format = (int)lib.vips_image_get_format(image);
    out->interpretation = (int)lib.vips_image_get_interpretation(image);
    out->orientation = lib.vips_image_get_orientation(image);
    out->has_alpha = lib.vips_image_hasalpha(image) ? 1 : 0;
    out->pages = lib.vips_image_get_n_pages(image);
    if (loader) {
        snprintf(out->loader, sizeof(out->loader), "%s", loader);
    }
}

int cvips_probe_file(const char *path, CVipsHeader *out) {
    VipsSource *source = lib.vips_source_new_from_file(path);
    if (!source) {
        return -2;
    }
    const char *loader = find_load_source(source);
    if (!loader) {
        lib.g_object_unref(source);
        return -2;
    }
    // The common case (every stored asset) skips vips_image_new_from_source, which would
    // sniff the bytes against every loader again.
    VipsImage *image = NULL;
    int result = strcmp(loader, "VipsForeignLoadJpegSource") == 0
        ? lib.vips_jpegload_source(source, &image, "fail_on", VIPS_FAIL_ON_ERROR, NULL)
        : ((image = lib.vips_image_new_from_source(source, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL)) ? 0 : -1);
    lib.g_object_unref(source);
    if (result || !image) {
        if (image) {
            lib.g_object_unref(image);
        }
        return -1;
    }
    fill_header(image, loader, out);
    lib.g_object_unref(image);
    return 0;
}

int cvips_header_buffer(const void *data, size_t length, CVipsHeader *out) {
    const char *loader = find_load_buffer(data, length);
    if (!loader) {
        return -1;
    }
    VipsImage *image = lib.vips_image_new_from_buffer(data, length, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) {
        return -1;
    }
    fill_header(image, loader, out);
    lib.g_object_unref(image);
    return 0;
}

int cvips_is_known_buffer(const void *data, size_t length) {
    return find_load_buffer(data, length) != NULL;
}

const char *cvips_interpretation_nick(int interpretation) {
    return lib.vips_enum_nick(lib.vips_interpretation_get_type(), interpretation);
}

const char *cvips_format_nick(int format) {
    return lib.vips_enum_nick(lib.vips_band_format_get_type(), format);
}

int cvips_thumbnail_file(const char *path, int width, int height, VipsImage **out) {
    VipsSource *source = lib.vips_source_new_from_file(path);
    if (!source) {
        return -1;
    }
    // Before the modules are in, a format only they read must load them first.
    if (!cvips_modules_loaded() && !find_load_source(source)) {
        lib.g_object_unref(source);
        return -1;
    }
    // libvips 8.14's thumbnail_source does not pass its fail_on to the loader,
    // so the loader gets it through the option string as well.
    int result = lib.vips_thumbnail_source(source, out, width,
        "option_string", "fail_on=error",
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "no_rotate", FALSE,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    // The thumbnail holds its own reference to the source while pixels are pending.
    lib.g_object_unref(source);
    return result;
}

int cvips_thumbnail_jpeg_file(const char *path, int shrink, int width, int height, VipsImage **out) {
    VipsSource *source = lib.vips_source_new_from_file(path);
    if (!source) {
        return -1;
    }
    VipsImage *loaded = NULL;
    int result = lib.vips_jpegload_source(source, &loaded,
        "shrink", shrink,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    lib.g_object_unref(source);
    if (result) {
        return -1;
    }
    result = lib.vips_thumbnail_image(loaded, out, width,
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "no_rotate", FALSE,
        NULL);
    lib.g_object_unref(loaded);
    return result;
}

int cvips_thumbnail_buffer(const void *data, size_t length, int width, int height, VipsImage **out) {
    if (!cvips_modules_loaded() && !find_load_buffer(data, length)) {
        return -1;
    }
    return lib.vips_thumbnail_buffer((void *)data, length, out, width,
        "option_string", "fail_on=error",
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "no_rotate", FALSE,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
}

/// Converts any interpretation and depth to sRGB with 8 bits per band; alpha is kept.
static int to_srgb8(VipsImage *in, VipsImage **out) {
    VipsImage *current = in;
    (lib.g_object_ref)(current);  // parenthesised: GLib defines a g_object_ref macro

    // An embedded profile (Adobe RGB, Display P3, a grey profile...) says what the numbers
    // mean; turn them into sRGB before the profile is stripped. A broken profile is ignored.
    if (lib.vips_image_get_typeof(current, VIPS_META_ICC_NAME)) {
        VipsImage *transformed = NULL;
        if (lib.vips_icc_transform(current, &transformed, "srgb",
                "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL) == 0) {
            lib.g_object_unref(current);
            current = transformed;
        } else {
            lib.vips_error_clear();
        }
    }

    VipsInterpretation space = lib.vips_image_guess_interpretation(current);
    if (space != VIPS_INTERPRETATION_sRGB || lib.vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        VipsImage *converted = NULL;
        if (lib.vips_colourspace(current, &converted, VIPS_INTERPRETATION_sRGB, "source_space", space, NULL)) {
            lib.g_object_unref(current);
            return -1;
        }
        lib.g_object_unref(current);
        current = converted;
    }
    if (lib.vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        VipsImage *cast = NULL;
        if (lib.vips_cast_uchar(current, &cast, NULL)) {
            lib.g_object_unref(current);
            return -1;
        }
        lib.g_object_unref(current);
        current = cast;
    }
    *out = current;
    return 0;
}

int cvips_to_srgb8_flat(VipsImage *in, VipsImage **out) {
    VipsImage *current = NULL;
    if (to_srgb8(in, &current)) {
        return -1;
    }
    if (lib.vips_image_hasalpha(current)) {
        VipsArrayDouble *white = lib.vips_array_double_newv(3, 255.0, 255.0, 255.0);
        VipsImage *flat = NULL;
        int result = lib.vips_flatten(current, &flat, "background", white, NULL);
        lib.vips_area_unref(VIPS_AREA(white));
        lib.g_object_unref(current);
        if (result) {
            return -1;
        }
        current = flat;
    }
    // An sRGB image can still carry extra bands (e.g. from a multiband TIFF).
    if (lib.vips_image_get_bands(current) > 3) {
        VipsImage *three = NULL;
        int result = lib.vips_extract_band(current, &three, 0, "n", 3, NULL);
        lib.g_object_unref(current);
        if (result) {
            return -1;
        }
        current = three;
    }
    *out = current;
    return 0;
}

int cvips_image_width(VipsImage *image) { return lib.vips_image_get_width(image); }
int cvips_image_height(VipsImage *image) { return lib.vips_image_get_height(image); }
int cvips_image_bands(VipsImage *image) { return lib.vips_image_get_bands(image); }

/// Decodes `in` to memory as 8-bit sRGB with 3 or 4 bands (alpha kept).
static int write_pixels(VipsImage *in, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsImage *current = NULL;
    if (to_srgb8(in, &current)) {
        return -3;
    }
    int bands = lib.vips_image_get_bands(current);
    if (bands > 4) {
        VipsImage *four = NULL;
        int result = lib.vips_extract_band(current, &four, 0, "n", 4, NULL);
        lib.g_object_unref(current);
        if (result) {
            return -1;
        }
        current = four;
        bands = 4;
    } else if (bands < 3) {
        lib.g_object_unref(current);
        lib.vips_error("cvips", "expected 3 or 4 bands after sRGB conversion, got %d", bands);
        return -3;
    }
    size_t length = 0;
    void *data = lib.vips_image_write_to_memory(current, &length);
    int width = lib.vips_image_get_width(current);
    int height = lib.vips_image_get_height(current);
    lib.g_object_unref(current);
    if (!data) {
        return -1;
    }
    if (length < (size_t)width * (size_t)height * (size_t)bands) {
        lib.g_free(data);
        lib.vips_error("cvips", "decoded %zu bytes for %dx%dx%d", length, width, height, bands);
        return -1;
    }
    out->data = data;
    out->width = width;
    out->height = height;
    out->bands = bands;
    return 0;
}

static int pixels_jpeg_source(VipsSource *source, int shrink, int width, int height, CVipsPixels *out) {
    VipsImage *loaded = NULL;
    int result = lib.vips_jpegload_source(source, &loaded,
        "shrink", shrink,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    lib.g_object_unref(source);
    if (result) {
        return -1;
    }
    // libjpeg's 1/shrink decode lands within a few times the target; libchafa resamples the
    // rest while it draws, so vips_thumbnail_image (a dozen operations of fixed cost) is only
    // needed to turn the picture upright or when the decode is still far too large.
    VipsImage *current = loaded;
    if (lib.vips_image_get_orientation(loaded) != 1
        || lib.vips_image_get_width(loaded) > 4 * width || lib.vips_image_get_height(loaded) > 4 * height) {
        result = lib.vips_thumbnail_image(loaded, &current, width,
            "height", height,
            "size", VIPS_SIZE_DOWN,
            "no_rotate", FALSE,
            NULL);
        lib.g_object_unref(loaded);
        if (result) {
            return -1;
        }
    }
    result = write_pixels(current, out);
    lib.g_object_unref(current);
    return result;
}

int cvips_pixels_jpeg_file(const char *path, int shrink, int width, int height, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsSource *source = lib.vips_source_new_from_file(path);
    if (!source) {
        return -1;
    }
    return pixels_jpeg_source(source, shrink, width, height, out);
}

int cvips_pixels_jpeg_buffer(const void *data, size_t length, int shrink, int width, int height, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsSource *source = lib.vips_source_new_from_memory(data, length);
    if (!source) {
        return -1;
    }
    return pixels_jpeg_source(source, shrink, width, height, out);
}

int cvips_pixels_file(const char *path, int width, int height, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsImage *thumbnail = NULL;
    if (cvips_thumbnail_file(path, width, height, &thumbnail)) {
        return -1;
    }
    int result = write_pixels(thumbnail, out);
    lib.g_object_unref(thumbnail);
    return result;
}

int cvips_pixels_buffer(const void *data, size_t length, int width, int height, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsImage *thumbnail = NULL;
    if (cvips_thumbnail_buffer(data, length, width, height, &thumbnail)) {
        return -1;
    }
    int result = write_pixels(thumbnail, out);
    lib.g_object_unref(thumbnail);
    return result;
}

int cvips_jpegsave_buffer(VipsImage *in, int quality, void **out, size_t *length) {
    return lib.vips_jpegsave_buffer(in, out, length, "Q", quality, "strip", TRUE, NULL);
}

void *cvips_write_to_memory(VipsImage *in, size_t *length) {
    return lib.vips_image_write_to_memory(in, length);
}

void cvips_unref(VipsImage *image) {
    if (image) {
        lib.g_object_unref(image);
    }
}

void cvips_free(void *memory) {
    if (memory) {
        lib.g_free(memory);
    }
}

char *cvips_error_copy(void) {
    if (ensure_loaded()) {
        return NULL;
    }
    return lib.vips_error_buffer_copy();
}

void cvips_error_clear(void) {
    if (ensure_loaded() == 0) {
        lib.vips_error_clear();
    }
}

// MARK: libchafa

static ChafaCanvasMode chafa_mode(CChafaMode mode) {
    switch (mode) {
    case CCHAFA_MODE_INDEXED_240: return CHAFA_CANVAS_MODE_INDEXED_240;
    case CCHAFA_MODE_INDEXED_16: return CHAFA_CANVAS_MODE_INDEXED_16;
    case CCHAFA_MODE_INDEXED_8: return CHAFA_CANVAS_MODE_INDEXED_8;
    case CCHAFA_MODE_FGBG: return CHAFA_CANVAS_MODE_FGBG;
    }
    return CHAFA_CANVAS_MODE_FGBG;
}

ChafaCanvas *cchafa_canvas_new(int columns, int rows, CChafaMode mode) {
    if (ensure_chafa()) {
        return NULL;
    }
    ChafaCanvasConfig *config = lib.chafa_canvas_config_new();
    ChafaSymbolMap *symbols = lib.chafa_symbol_map_new();
    // Blocks (half, quarter, eighth), box-drawing borders and space: all one column wide.
    lib.chafa_symbol_map_add_by_tags(symbols,
        CHAFA_SYMBOL_TAG_BLOCK | CHAFA_SYMBOL_TAG_BORDER | CHAFA_SYMBOL_TAG_SPACE | CHAFA_SYMBOL_TAG_HALF);
    lib.chafa_symbol_map_remove_by_tags(symbols, CHAFA_SYMBOL_TAG_WIDE);
    lib.chafa_canvas_config_set_symbol_map(config, symbols);
    lib.chafa_canvas_config_set_geometry(config, columns, rows);
    lib.chafa_canvas_config_set_canvas_mode(config, chafa_mode(mode));
    lib.chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS);
    ChafaCanvas *canvas = lib.chafa_canvas_new(config);
    lib.chafa_symbol_map_unref(symbols);
    lib.chafa_canvas_config_unref(config);
    return canvas;
}

void cchafa_canvas_unref(ChafaCanvas *canvas) {
    if (canvas) {
        lib.chafa_canvas_unref(canvas);
    }
}

void cchafa_canvas_draw(ChafaCanvas *canvas, const uint8_t *pixels, int width, int height, int bands) {
    ChafaPixelType type = bands == 3 ? CHAFA_PIXEL_RGB8 : CHAFA_PIXEL_RGBA8_UNASSOCIATED;
    lib.chafa_canvas_draw_all_pixels(canvas, type, pixels, width, height, width * bands);
}

uint32_t cchafa_canvas_char_at(ChafaCanvas *canvas, int x, int y) {
    return lib.chafa_canvas_get_char_at(canvas, x, y);
}

void cchafa_canvas_colors_at(ChafaCanvas *canvas, int x, int y, int32_t *foreground, int32_t *background) {
    gint fg = -1, bg = -1;
    lib.chafa_canvas_get_raw_colors_at(canvas, x, y, &fg, &bg);
    *foreground = fg;
    *background = bg;
}

int cchafa_encode(const uint8_t *pixels, int width, int height, int bands, int columns, int rows,
                  int cell_width, int cell_height, CChafaPixelMode mode, char **out, size_t *length) {
    *out = NULL;
    *length = 0;
    if (ensure_chafa() || !fallback_term_info) {
        return -1;
    }
    ChafaCanvasConfig *config = lib.chafa_canvas_config_new();
    lib.chafa_canvas_config_set_geometry(config, columns, rows);
    lib.chafa_canvas_config_set_cell_geometry(config, cell_width, cell_height);
    lib.chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR);
    ChafaPixelMode pixel_mode = mode == CCHAFA_PIXELS_KITTY ? CHAFA_PIXEL_MODE_KITTY
        : mode == CCHAFA_PIXELS_SIXELS ? CHAFA_PIXEL_MODE_SIXELS : CHAFA_PIXEL_MODE_ITERM2;
    lib.chafa_canvas_config_set_pixel_mode(config, pixel_mode);
    ChafaCanvas *canvas = lib.chafa_canvas_new(config);
    lib.chafa_canvas_config_unref(config);
    if (!canvas) {
        return -1;
    }
    ChafaPixelType type = bands == 3 ? CHAFA_PIXEL_RGB8 : CHAFA_PIXEL_RGBA8_UNASSOCIATED;
    lib.chafa_canvas_draw_all_pixels(canvas, type, pixels, width, height, width * bands);
    GString *printed = lib.chafa_canvas_print(canvas, fallback_term_info);
    lib.chafa_canvas_unref(canvas);
    if (!printed) {
        return -1;
    }
    *length = printed->len;
    *out = lib.g_string_free(printed, FALSE);
    return 0;
}
