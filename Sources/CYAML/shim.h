// libyaml from Debian (libyaml-dev): the rules file's parser.
#include <yaml.h>
