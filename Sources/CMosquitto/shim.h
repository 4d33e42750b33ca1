// libmosquitto from Debian (libmosquitto-dev): the MQTT client behind --mqtt.
#include <mosquitto.h>
