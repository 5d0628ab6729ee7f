//! The example the page offers: two hosts whose NCCL found no verbs library and fell back to
//! TCP sockets. Written from NCCL's own format strings (NVIDIA/nccl v2.18.3-1):
//! src/bootstrap.cc:52 (`Bootstrap : Using`), src/init.cc:448 and 455 (version banner),
//! src/misc/ibvsymbols.cc:78 (libibverbs missing), src/transport/net_socket.cc:62
//! (`NET/Socket : Using`), src/init.cc:310 (`Using network`), src/init.cc:1375
//! (`Init COMPLETE`), src/transport/net.cc:186 and 227 (channel lines). The host names,
//! pids and addresses are made up.

pub const SOCKET_FALLBACK: &str = "\
node-a:4101:4101 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>
node-a:4101:4101 [0] NCCL INFO NCCL version 2.18.3+cuda12.2
node-a:4101:4130 [0] NCCL INFO Failed to open libibverbs.so[.1]
node-a:4101:4130 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>
node-a:4101:4130 [0] NCCL INFO Using network Socket
node-b:5202:5231 [0] NCCL INFO Failed to open libibverbs.so[.1]
node-b:5202:5231 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>
node-b:5202:5231 [0] NCCL INFO Using network Socket
node-a:4101:4130 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0
node-b:5202:5231 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0
node-b:5202:5231 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/Socket/0
node-a:4101:4130 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0
node-a:4101:4130 [0] NCCL INFO comm 0x5581d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x7d1c4a - Init COMPLETE
node-b:5202:5231 [0] NCCL INFO comm 0x55a2e0 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x7d1c4a - Init COMPLETE
";
