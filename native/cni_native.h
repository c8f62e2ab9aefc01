/* What cni_native.c shares with nl_socket.c. */
#ifndef CNI_NATIVE_H
#define CNI_NATIVE_H

#include <node_api.h>

/* Throws an Error with Node's shape: message "<syscall>: <strerror>", code, errno, syscall. */
void throw_errno(napi_env env, const char *syscall, int err);
/* Read a number argument; throw a TypeError (RangeError for a negative fd) and return 0 if not. */
int get_int(napi_env env, napi_value v, const char *what, int *out);
int get_fd(napi_env env, napi_value v, int *out);
/* Move this thread into the netns open at fd; returns the fd to leave_netns with, or -1 having thrown. */
int enter_netns(napi_env env, int fd);
/* Switch back; aborts the process if it cannot. */
void leave_netns(int saved);
int export_fn(napi_env env, napi_value exports, const char *name, napi_callback cb);
/* Adds nlOpen, nlSend, nlReceive and nlClose to exports. */
int export_nl_socket(napi_env env, napi_value exports);
/* Adds spawnStart and spawnWait to exports (spawn.c). */
int export_spawn(napi_env env, napi_value exports);
/* Adds tunCreate to exports (tun.c). */
int export_tun(napi_env env, napi_value exports);
/* Adds packetOpen, packetSend and packetReceive to exports (packet.c). */
int export_packet(napi_env env, napi_value exports);

#endif
