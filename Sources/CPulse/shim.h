// PulseAudio's simple API from Debian (libpulse-dev): one playback stream per clip.
#include <pulse/simple.h>
#include <pulse/error.h>
