/* An empty source for the layer-check shared objects (CMakeLists.txt here): all their code comes
 * from the layer's static library. */
typedef int pfio_layer_check_empty;
