#!/bin/sh
# postinst/postrm of pfio's .deb: refresh the loader's cache for the libraries in /usr/lib.
set -e
if [ "$1" = "configure" ] || [ "$1" = "remove" ] || [ "$1" = "purge" ]; then
  ldconfig
fi
