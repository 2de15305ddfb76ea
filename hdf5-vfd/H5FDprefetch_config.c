/* The driver's configuration: H5FD_prefetch_config_t (filled and checked; H5FDprefetch_fapl.c
 * sets it on a file access property list and reads it back), and the pfio config an open file's
 * context is made from. Every
 * value is checked by pfio's own parser, so a key means and accepts here what it does everywhere
 * else (pfio_config_set, PFIO_* variables, prefetch_* hints). */
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"

/*-------------------------------------------------------------------------
 * Function:    H5FD_prefetch_config_init
 *
 * Purpose:     Fills *config with the magic, the version, prediction on and no settings.
 *
 * Return:      Success:    0
 *              Failure:    -1 (config NULL)
 *-------------------------------------------------------------------------
 */
herr_t H5FD_prefetch_config_init(H5FD_prefetch_config_t *config)
{
    if (config == NULL) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE, "config is NULL: expected a struct");
        return -1;
    }
    memset(config, 0, sizeof *config);
    config->magic = H5FD_PREFETCH_CONFIG_MAGIC;
    config->version = H5FD_PREFETCH_CONFIG_VERSION;
    config->predict = 1;
    config->engine_min = H5FD_PREFETCH_ENGINE_NEVER;
    return 0;
}

/* Builds pfio's config from the environment and `config`'s settings; NULL after pushing an error
 * that names the first setting pfio refuses. */
pfio_config *H5FD__prefetch_engine_config(const H5FD_prefetch_config_t *config, const char *func)
{
    pfio_config *engine = NULL;
    pfio_named_setting list[H5FD_PREFETCH_SETTINGS_MAX];
    char names[H5FD_PREFETCH_SETTINGS_MAX][H5FD_PREFETCH_KEY_MAX + 16];
    int i;
    if (pfio_config_create(&engine) != PFIO_OK) {
        H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE, "%s", pfio_last_error());
        pfio_config_destroy(engine);
        return NULL;
    }
    /* The buffer kind is the engine's rule (buffer = auto, chosen per file at open: the page cache
     * on a local file system, the reorder buffer behind FUSE or a network) unless PFIO_BUFFER or
     * the config's settings name it. */
    /* The settings by pfio's rule for a source (pfio_config_apply): names of one setting, say
     * buffer and read_path, with different values are refused like a bad value. */
    for (i = 0; config != NULL && i < config->nsettings; ++i) {
        snprintf(names[i], sizeof names[i], "settings[%d] %s", i, config->settings[i].key);
        list[i].name = names[i];
        list[i].key = config->settings[i].key;
        list[i].value = config->settings[i].value;
    }
    if (i > 0 && pfio_config_apply(engine, "config", list, (size_t)i, NULL, NULL) != PFIO_OK) {
        H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE, "%s", pfio_last_error());
        pfio_config_destroy(engine);
        return NULL;
    }
    if (pfio_config_validate(engine) != PFIO_OK) {
        H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE, "%s", pfio_last_error());
        pfio_config_destroy(engine);
        return NULL;
    }
    return engine;
}

/* The driver's own settings, keys "predict" and "engine_min" of pfio's config (config settings,
 * PFIO_PREDICT, PFIO_ENGINE_MIN): they apply where the struct's fields of the same names are at
 * their defaults (fields set by a program written for 0.3 win). */
int H5FD__prefetch_settle_config(H5FD_prefetch_config_t *config, char **stats_path,
                                 int *page_cache_kind, const char *func)
{
    char buffer[16] = "";
    uint64_t v = 0;
    char path[4096] = "";
    pfio_config *engine = H5FD__prefetch_engine_config(config, func);
    *stats_path = NULL;
    if (engine == NULL)
        return -1;
    if (pfio_config_get(engine, "stats_path", path, sizeof path) == PFIO_OK && path[0] != '\0') {
        *stats_path = strdup(path);
        if (*stats_path == NULL) {
            H5FD__prefetch_error(func, H5E_VFL, H5E_CANTALLOC, "no memory for stats_path %s", path);
            pfio_config_destroy(engine);
            return -1;
        }
    }
    if (config->predict == 1 && pfio_config_get_number(engine, "predict", &v) == PFIO_OK)
        config->predict = (int32_t)v;
    if (config->engine_min == H5FD_PREFETCH_ENGINE_NEVER &&
        pfio_config_get_number(engine, "engine_min", &v) == PFIO_OK)
        config->engine_min = v;
    /* Until pfio opens the file and says which kind it got (buffer = auto chooses at open). */
    *page_cache_kind = pfio_config_get(engine, "buffer", buffer, sizeof buffer) == PFIO_OK &&
                       strcmp(buffer, "engine") != 0;
    pfio_config_destroy(engine);
    return 0;
}

/* Whether `config` is one this release understands; pushes an error naming the field if not. */
int H5FD__prefetch_config_ok(const H5FD_prefetch_config_t *config, const char *func)
{
    int i;
    if (config->magic != H5FD_PREFETCH_CONFIG_MAGIC) {
        H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE,
                             "config magic = 0x%08x: expected 0x%08x (H5FD_PREFETCH_CONFIG_MAGIC; "
                             "fill the struct with H5FD_prefetch_config_init)",
                             (unsigned)config->magic, (unsigned)H5FD_PREFETCH_CONFIG_MAGIC);
        return 0;
    }
    if (config->version != H5FD_PREFETCH_CONFIG_VERSION) {
        H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE,
                             "config version = %d: expected %d (H5FD_PREFETCH_CONFIG_VERSION)",
                             (int)config->version, H5FD_PREFETCH_CONFIG_VERSION);
        return 0;
    }
    if (config->predict != 0 && config->predict != 1) {
        H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE, "config predict = %d: expected 0 or 1",
                             (int)config->predict);
        return 0;
    }
    if (config->nsettings < 0 || config->nsettings > H5FD_PREFETCH_SETTINGS_MAX) {
        H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE,
                             "config nsettings = %d: expected 0 .. %d", (int)config->nsettings,
                             H5FD_PREFETCH_SETTINGS_MAX);
        return 0;
    }
    for (i = 0; i < config->nsettings; ++i) {
        const H5FD_prefetch_setting_t *s = &config->settings[i];
        if (memchr(s->key, '\0', sizeof s->key) == NULL ||
            memchr(s->value, '\0', sizeof s->value) == NULL) {
            H5FD__prefetch_error(func, H5E_PLIST, H5E_BADVALUE,
                                 "config settings[%d]: key or value not NUL-terminated within %d "
                                 "and %d bytes",
                                 i, H5FD_PREFETCH_KEY_MAX, H5FD_PREFETCH_VALUE_MAX);
            return 0;
        }
    }
    pfio_config *engine = H5FD__prefetch_engine_config(config, func);
    pfio_config_destroy(engine);
    return engine != NULL;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD_prefetch_config_set
 *
 * Purpose:     Adds or replaces the engine setting `key` in *config, after pfio accepted it.
 *
 * Return:      Success:    0
 *              Failure:    -1, *config unchanged, pfio's message on the error stack
 *-------------------------------------------------------------------------
 */
herr_t H5FD_prefetch_config_set(H5FD_prefetch_config_t *config, const char *key, const char *value)
{
    pfio_config *probe = NULL;
    int i;
    if (config == NULL || key == NULL || value == NULL) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE,
                             "config, key and value must not be NULL (config %p, key %p, value %p)",
                             (void *)config, (const void *)key, (const void *)value);
        return -1;
    }
    if (!H5FD__prefetch_config_ok(config, __func__))
        return -1;
    if (strlen(key) >= H5FD_PREFETCH_KEY_MAX || strlen(value) >= H5FD_PREFETCH_VALUE_MAX) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE,
                             "setting %s = %s: key longer than %d or value longer than %d bytes",
                             key, value, H5FD_PREFETCH_KEY_MAX - 1, H5FD_PREFETCH_VALUE_MAX - 1);
        return -1;
    }
    if (pfio_config_create(&probe) != PFIO_OK && probe == NULL) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_CANTALLOC, "%s", pfio_last_error());
        return -1;
    }
    if (pfio_config_set(probe, key, value) != PFIO_OK) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE, "%s", pfio_last_error());
        pfio_config_destroy(probe);
        return -1;
    }
    pfio_config_destroy(probe);
    for (i = 0; i < config->nsettings; ++i)
        if (strcmp(config->settings[i].key, key) == 0)
            break;
    if (i == H5FD_PREFETCH_SETTINGS_MAX) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE,
                             "setting %s = %s: config already holds %d settings, the most it can",
                             key, value, H5FD_PREFETCH_SETTINGS_MAX);
        return -1;
    }
    snprintf(config->settings[i].key, sizeof config->settings[i].key, "%s", key);
    snprintf(config->settings[i].value, sizeof config->settings[i].value, "%s", value);
    if (i == config->nsettings)
        ++config->nsettings;
    return 0;
}
