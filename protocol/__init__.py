"""The wire protocol, sans-I/O: frames, msgpack with limits, typed messages, the
handshake, sealed hands, certificates and the provably fair deal.  Bytes in, events
out; no sockets, no clocks."""
