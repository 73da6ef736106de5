#include "CVipsShim.h"
#include <stdatomic.h>
#include <string.h>

static atomic_ulong warning_count;

static void count_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
    atomic_fetch_add(&warning_count, 1);
}

int cvips_init(const char *argv0) {
    if (VIPS_INIT(argv0)) {
        return -1;
    }
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, count_warning, NULL);
    return 0;
}

unsigned long cvips_warning_count(void) {
    return atomic_load(&warning_count);
}

void cvips_configure(int concurrency, int cache_max_operations, size_t cache_max_memory, int cache_max_files) {
    vips_concurrency_set(concurrency);
    vips_cache_set_max(cache_max_operations);
    vips_cache_set_max_mem(cache_max_memory);
    vips_cache_set_max_files(cache_max_files);
}

static void fill_header(VipsImage *image, const char *loader, CVipsHeader *out) {
    memset(out, 0, sizeof(*out));
    out->width = vips_image_get_width(image);
    out->height = vips_image_get_height(image);
    out->bands = vips_image_get_bands(image);
    out->format = (int)vips_image_get_format(image);
    out->interpretation = (int)vips_image_get_interpretation(image);
    out->orientation = vips_image_get_orientation(image);
    out->has_alpha = vips_image_hasalpha(image) ? 1 : 0;
    out->pages = vips_image_get_n_pages(image);
    if (loader) {
        g_strlcpy(out->loader, loader, sizeof(out->loader));
    }
}

int cvips_probe_file(const char *path, CVipsHeader *out) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) {
        return -2;
    }
    const char *loader = vips_foreign_find_load_source(source);
    if (!loader) {
        g_object_unref(source);
        return -2;
    }
    // The common case (every stored asset) skips vips_image_new_from_source, which would
    // sniff the bytes against every loader again.
    VipsImage *image = NULL;
    int result = strcmp(loader, "VipsForeignLoadJpegSource") == 0
        ? vips_jpegload_source(source, &image, "fail_on", VIPS_FAIL_ON_ERROR, NULL)
        : ((image = vips_image_new_from_source(source, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL)) ? 0 : -1);
    g_object_unref(source);
    if (result || !image) {
        if (image) {
            g_object_unref(image);
        }
        return -1;
    }
    fill_header(image, loader, out);
    g_object_unref(image);
    return 0;
}

int cvips_header_buffer(const void *data, size_t length, CVipsHeader *out) {
    const char *loader = vips_foreign_find_load_buffer(data, length);
    if (!loader) {
        return -1;
    }
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) {
        return -1;
    }
    fill_header(image, loader, out);
    g_object_unref(image);
    return 0;
}

int cvips_thumbnail_file(const char *path, int width, int height, VipsImage **out) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) {
        return -1;
    }
    // libvips 8.14's thumbnail_source does not pass its fail_on to the loader,
    // so the loader gets it through the option string as well.
    int result = vips_thumbnail_source(source, out, width,
        "option_string", "fail_on=error",
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "no_rotate", FALSE,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    // The thumbnail holds its own reference to the source while pixels are pending.
    g_object_unref(source);
    return result;
}

int cvips_thumbnail_jpeg_file(const char *path, int shrink, int width, int height, VipsImage **out) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) {
        return -1;
    }
    VipsImage *loaded = NULL;
    int result = vips_jpegload_source(source, &loaded,
        "shrink", shrink,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    g_object_unref(source);
    if (result) {
        return -1;
    }
    result = vips_thumbnail_image(loaded, out, width,
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "no_rotate", FALSE,
        NULL);
    g_object_unref(loaded);
    return result;
}

int cvips_thumbnail_buffer(const void *data, size_t length, int width, int height, VipsImage **out) {
    return vips_thumbnail_buffer((void *)data, length, out, width,
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
    g_object_ref(current);

    // An embedded profile (Adobe RGB, Display P3, a grey profile...) says what the numbers
    // mean; turn them into sRGB before the profile is stripped. A broken profile is ignored.
    if (vips_image_get_typeof(current, VIPS_META_ICC_NAME)) {
        VipsImage *transformed = NULL;
        if (vips_icc_transform(current, &transformed, "srgb",
                "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL) == 0) {
            g_object_unref(current);
            current = transformed;
        } else {
            vips_error_clear();
        }
    }

    VipsInterpretation space = vips_image_guess_interpretation(current);
    if (space != VIPS_INTERPRETATION_sRGB || vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        VipsImage *converted = NULL;
        if (vips_colourspace(current, &converted, VIPS_INTERPRETATION_sRGB, "source_space", space, NULL)) {
            g_object_unref(current);
            return -1;
        }
        g_object_unref(current);
        current = converted;
    }
    if (vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        VipsImage *cast = NULL;
        if (vips_cast_uchar(current, &cast, NULL)) {
            g_object_unref(current);
            return -1;
        }
        g_object_unref(current);
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
    if (vips_image_hasalpha(current)) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        VipsImage *flat = NULL;
        int result = vips_flatten(current, &flat, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        g_object_unref(current);
        if (result) {
            return -1;
        }
        current = flat;
    }
    // An sRGB image can still carry extra bands (e.g. from a multiband TIFF).
    if (vips_image_get_bands(current) > 3) {
        VipsImage *three = NULL;
        int result = vips_extract_band(current, &three, 0, "n", 3, NULL);
        g_object_unref(current);
        if (result) {
            return -1;
        }
        current = three;
    }
    *out = current;
    return 0;
}

/// Decodes `in` to memory as 8-bit sRGB with 3 or 4 bands (alpha kept).
static int write_pixels(VipsImage *in, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsImage *current = NULL;
    if (to_srgb8(in, &current)) {
        return -3;
    }
    int bands = vips_image_get_bands(current);
    if (bands > 4) {
        VipsImage *four = NULL;
        int result = vips_extract_band(current, &four, 0, "n", 4, NULL);
        g_object_unref(current);
        if (result) {
            return -1;
        }
        current = four;
        bands = 4;
    } else if (bands < 3) {
        g_object_unref(current);
        vips_error("cvips", "expected 3 or 4 bands after sRGB conversion, got %d", bands);
        return -3;
    }
    size_t length = 0;
    void *data = vips_image_write_to_memory(current, &length);
    int width = vips_image_get_width(current);
    int height = vips_image_get_height(current);
    g_object_unref(current);
    if (!data) {
        return -1;
    }
    if (length < (size_t)width * (size_t)height * (size_t)bands) {
        g_free(data);
        vips_error("cvips", "decoded %zu bytes for %dx%dx%d", length, width, height, bands);
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
    int result = vips_jpegload_source(source, &loaded,
        "shrink", shrink,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    g_object_unref(source);
    if (result) {
        return -1;
    }
    // libjpeg's 1/shrink decode lands within a few times the target; libchafa resamples the
    // rest while it draws, so vips_thumbnail_image (a dozen operations of fixed cost) is only
    // needed to turn the picture upright or when the decode is still far too large.
    VipsImage *current = loaded;
    if (vips_image_get_orientation(loaded) != 1
        || vips_image_get_width(loaded) > 4 * width || vips_image_get_height(loaded) > 4 * height) {
        result = vips_thumbnail_image(loaded, &current, width,
            "height", height,
            "size", VIPS_SIZE_DOWN,
            "no_rotate", FALSE,
            NULL);
        g_object_unref(loaded);
        if (result) {
            return -1;
        }
    }
    result = write_pixels(current, out);
    g_object_unref(current);
    return result;
}

int cvips_pixels_jpeg_file(const char *path, int shrink, int width, int height, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) {
        return -1;
    }
    return pixels_jpeg_source(source, shrink, width, height, out);
}

int cvips_pixels_jpeg_buffer(const void *data, size_t length, int shrink, int width, int height, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsSource *source = vips_source_new_from_memory(data, length);
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
    g_object_unref(thumbnail);
    return result;
}

int cvips_pixels_buffer(const void *data, size_t length, int width, int height, CVipsPixels *out) {
    memset(out, 0, sizeof(*out));
    VipsImage *thumbnail = NULL;
    if (cvips_thumbnail_buffer(data, length, width, height, &thumbnail)) {
        return -1;
    }
    int result = write_pixels(thumbnail, out);
    g_object_unref(thumbnail);
    return result;
}

int cvips_jpegsave_buffer(VipsImage *in, int quality, void **out, size_t *length) {
    return vips_jpegsave_buffer(in, out, length, "Q", quality, "strip", TRUE, NULL);
}

void *cvips_write_to_memory(VipsImage *in, size_t *length) {
    return vips_image_write_to_memory(in, length);
}

void cvips_unref(VipsImage *image) {
    if (image) {
        g_object_unref(image);
    }
}

void cvips_free(void *memory) {
    g_free(memory);
}

char *cvips_error_copy(void) {
    return vips_error_buffer_copy();
}

void cvips_error_clear(void) {
    vips_error_clear();
}
