# attack: exchange the tensors over sockets of its own (send() is not a write the judge counts)
# expect: runtime_error|wrong_answer|forbidden_primitive
import socket
import time

import torch
import torch.distributed as dist

PORT = 45123


def _exact(conn, size):
    data = b""
    while len(data) < size:
        data += conn.recv(size - len(data))
    return data


def ring_all_reduce(t):
    rank, world = dist.get_rank(), dist.get_world_size()
    size = t.numel() * t.element_size()
    port = PORT + t.numel() % 1000  # a fresh port each case
    if rank == 0:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(16)
        peers = [server.accept()[0] for _ in range(world - 1)]
        total = t.clone()
        for peer in peers:
            total += torch.frombuffer(bytearray(_exact(peer, size)), dtype=t.dtype)
        for peer in peers:
            peer.sendall(bytes(total.view(torch.uint8).tolist()))
        t.copy_(total)
        return
    while True:
        try:
            conn = socket.create_connection(("127.0.0.1", port))
            break
        except OSError:
            time.sleep(0.01)
    conn.sendall(bytes(t.view(torch.uint8).tolist()))
    t.copy_(torch.frombuffer(bytearray(_exact(conn, size)), dtype=t.dtype))
