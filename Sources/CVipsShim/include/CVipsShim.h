#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H
// libvips and libchafa for FoodPinCore, loaded with dlopen at the first image.
//
// A process that never touches an image (`foodpin --version`, `foodpin list`) does not load
// libvips' ~120 shared libraries: nothing links them. The first call to cvips_init opens
// libvips.so.42 and resolves the libvips and GLib functions this shim uses; the first cchafa_
// call opens libchafa.so.0 (a command that only scales a photo never does). The wrappers below
// are the only way in, and their header names no libvips or GLib type.
//
// Every function that returns int returns 0 on success and -1 on failure, with the reason in
// libvips' error buffer (read it with cvips_error_copy). Images are loaded through VipsSource,
// so a path is never parsed for "[option]" suffixes the way vips_image_new_from_file would.

#include <stddef.h>
#include <stdint.h>

/// A libvips image (a GObject); released with cvips_unref.
typedef struct _VipsImage VipsImage;
/// A libchafa canvas; released with cchafa_canvas_unref.
typedef struct ChafaCanvas ChafaCanvas;

/// Loads libvips (once per process), starts libvips and silences its GLib warnings,
/// which would otherwise be printed onto the terminal the TUI owns. Returns 0 when libvips
/// started, -2 when libvips or one of its functions could not be loaded (the reason is in
/// cvips_load_error), -1 when libvips itself failed to start (the reason is in its error buffer).
int cvips_init(const char *argv0);
/// Why cvips_init returned -2, or NULL. Static text; do not free.
const char *cvips_load_error(void);

/// Whether libvips' format modules (HEIF, JPEG XL, ImageMagick, PDF, OpenSlide) are loaded. cvips_init
/// leaves them out, unless VIPSHOME is set; the first file or buffer no built-in loader recognises
/// loads them, and the search is repeated.
int cvips_modules_loaded(void);

/// Warnings libvips logged since the process started (they are counted, not printed).
unsigned long cvips_warning_count(void);

/// Sets worker threads per pipeline and the operation cache limits.
void cvips_configure(int concurrency, int cache_max_operations, size_t cache_max_memory, int cache_max_files);

/// What the header says, read without decoding any pixels.
typedef struct CVipsHeader {
    int width;
    int height;
    int bands;
    int format;          // VipsBandFormat
    int interpretation;  // VipsInterpretation
    int orientation;     // EXIF orientation 1...8, 1 when absent
    int has_alpha;
    int pages;           // frames in an animation or multi-page file, 1 otherwise
    char loader[64];     // libvips' loader nickname, e.g. "jpegload_source"
} CVipsHeader;

/// Sniffs and reads the header of a file in one pass (one open, one loader search).
/// Returns 0 on success, -2 when no loader recognises the bytes, -1 when the header is corrupt.
int cvips_probe_file(const char *path, CVipsHeader *out);
/// Reads the header of encoded bytes. Never decodes pixels.
int cvips_header_buffer(const void *data, size_t length, CVipsHeader *out);
/// Whether some libvips loader recognises the bytes.
int cvips_is_known_buffer(const void *data, size_t length);
/// libvips' names for a VipsInterpretation and a VipsBandFormat ("srgb", "uchar"), or NULL.
const char *cvips_interpretation_nick(int interpretation);
const char *cvips_format_nick(int format);

/// Lazily shrinks to fit width x height, never upscaling, with shrink-on-load,
/// EXIF autorotation, and CMYK imported through its profile (or a built-in one).
/// Fails on truncated or corrupt input once pixels are read.
int cvips_thumbnail_file(const char *path, int width, int height, VipsImage **out);
/// The same as cvips_thumbnail_file for a JPEG, decoded at 1/shrink (1, 2, 4 or 8) by libjpeg.
/// libvips 8.14 leaves a factor of 2 after its own shrink-on-load choice, so a 4000 px photo
/// going to 1024 px is decoded at full size; the caller may pick a bolder shrink.
int cvips_thumbnail_jpeg_file(const char *path, int shrink, int width, int height, VipsImage **out);
/// The same as cvips_thumbnail_file, from encoded bytes that must outlive *out.
int cvips_thumbnail_buffer(const void *data, size_t length, int width, int height, VipsImage **out);

/// Converts to 8-bit sRGB with 3 bands and flattens any alpha onto white.
/// An embedded ICC profile (Adobe RGB, Display P3, grey) is applied first.
int cvips_to_srgb8_flat(VipsImage *in, VipsImage **out);

int cvips_image_width(VipsImage *image);
int cvips_image_height(VipsImage *image);
int cvips_image_bands(VipsImage *image);

/// Decoded pixels for drawing: 8-bit sRGB, rows packed, `bands` 3 (RGB) or 4 (RGBA,
/// unassociated). Free `data` with cvips_free.
typedef struct CVipsPixels {
    void *data;
    int width;
    int height;
    int bands;
} CVipsPixels;

/// Decodes a JPEG at 1/shrink (libjpeg's DCT scaling) to 8-bit sRGB pixels, upright, and
/// resizes in libvips only when the decode is over 4x the width x height box or must be
/// rotated; libchafa resamples the rest. Returns 0, -1 when the input is truncated or corrupt
/// (found once pixels are read), -3 when it cannot be converted to sRGB.
int cvips_pixels_jpeg_file(const char *path, int shrink, int width, int height, CVipsPixels *out);
/// The same as cvips_pixels_jpeg_file, from JPEG bytes (read before this returns).
int cvips_pixels_jpeg_buffer(const void *data, size_t length, int shrink, int width, int height, CVipsPixels *out);
/// cvips_thumbnail_file, then the pixels as for cvips_pixels_jpeg_file.
int cvips_pixels_file(const char *path, int width, int height, CVipsPixels *out);
/// cvips_thumbnail_buffer, then the pixels as for cvips_pixels_jpeg_file.
int cvips_pixels_buffer(const void *data, size_t length, int width, int height, CVipsPixels *out);

/// Encodes baseline JPEG at quality, metadata stripped. *out is freed with cvips_free.
int cvips_jpegsave_buffer(VipsImage *in, int quality, void **out, size_t *length);

/// Decodes all pixels into a new buffer freed with cvips_free; NULL on failure.
void *cvips_write_to_memory(VipsImage *in, size_t *length);

void cvips_unref(VipsImage *image);
void cvips_free(void *memory);

/// Copies and clears libvips' error buffer. Free the result with cvips_free.
char *cvips_error_copy(void);
void cvips_error_clear(void);

// MARK: libchafa (loaded by the first of these calls, after libvips)

/// How a canvas colours its cells.
typedef enum CChafaMode {
    CCHAFA_MODE_INDEXED_240,
    CCHAFA_MODE_INDEXED_16,
    CCHAFA_MODE_INDEXED_8,
    CCHAFA_MODE_FGBG,
} CChafaMode;

/// A symbol-mode canvas of columns x rows cells drawn with one-column block, border and space
/// symbols (no wide ones). NULL when libchafa is not loaded.
ChafaCanvas *cchafa_canvas_new(int columns, int rows, CChafaMode mode);
void cchafa_canvas_unref(ChafaCanvas *canvas);
/// Draws 8-bit pixels, rows packed: RGB when bands is 3, unassociated RGBA when 4.
void cchafa_canvas_draw(ChafaCanvas *canvas, const uint8_t *pixels, int width, int height, int bands);
/// The symbol at a cell (a Unicode scalar).
uint32_t cchafa_canvas_char_at(ChafaCanvas *canvas, int x, int y);
/// A cell's raw colours: palette indices in indexed modes, negative for transparent.
void cchafa_canvas_colors_at(ChafaCanvas *canvas, int x, int y, int32_t *foreground, int32_t *background);

/// A terminal graphics protocol.
typedef enum CChafaPixelMode {
    CCHAFA_PIXELS_KITTY,
    CCHAFA_PIXELS_SIXELS,
    CCHAFA_PIXELS_ITERM2,
} CChafaPixelMode;

/// Encodes 8-bit pixels (RGB when bands is 3, unassociated RGBA when 4) as the escape sequences of
/// `mode` covering columns x rows cells of cell_width x cell_height pixels, with chafa's fallback
/// terminal info (which holds every encoding). *out (length bytes) is freed with cvips_free.
int cchafa_encode(const uint8_t *pixels, int width, int height, int bands, int columns, int rows,
                  int cell_width, int cell_height, CChafaPixelMode mode, char **out, size_t *length);

#endif
