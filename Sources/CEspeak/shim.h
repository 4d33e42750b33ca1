// espeak-ng from Debian (libespeak-ng-dev): spoken lines, synthesized into memory.
#include <espeak-ng/speak_lib.h>
