{
  "targets": [
    {
      "target_name": "cni_native",
      "sources": ["cni_native.c", "nl_socket.c", "nl_walk.c", "spawn.c", "tun.c", "packet.c"],
      "defines": ["NAPI_VERSION=8", "_GNU_SOURCE"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
