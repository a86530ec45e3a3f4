"""The grader's pipes to a child: every read and write has its deadline, and nothing more is trusted."""

import os
import threading
import time

import pytest

from menace_course.sandbox.channel import Channel, ChannelClosed, ReplyTooLarge


@pytest.fixture
def pipes():
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    channel = Channel(request_write, reply_read, reply_cap=100)
    yield channel, request_read, reply_write
    channel.close()
    for fd in (request_read, reply_write):
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_line_already_there_is_read_even_after_the_deadline(pipes):
    channel, _, reply_write = pipes
    os.write(reply_write, b"one\ntwo\n")
    assert channel.receive(time.monotonic() - 1) == b"one"
    assert channel.receive(time.monotonic() - 1) == b"two"


def test_a_whole_line_already_read_is_known_to_be_waiting_and_half_a_line_is_not(pipes):
    channel, _, reply_write = pipes
    assert not channel.has_line()
    os.write(reply_write, b"one\ntw")
    assert channel.receive(time.monotonic() + 1) == b"one"
    assert not channel.has_line()  # "tw" came in the same read, without its newline
    os.write(reply_write, b"o\nthree\n")
    assert channel.receive(time.monotonic() + 1) == b"two"
    assert channel.has_line()  # "three" came with it: the next receive does not wait
    assert channel.receive(time.monotonic() - 1) == b"three"
    assert not channel.has_line()


def test_many_lines_in_one_read_come_out_one_by_one_in_order(pipes):
    channel, _, reply_write = pipes
    lines = [b"%06d" % n * 10 for n in range(2000)]  # 122 KB: more than a read takes at once
    writer = threading.Thread(target=lambda: os.write(reply_write, b"\n".join(lines) + b"\n"))
    writer.start()
    got = [channel.receive(time.monotonic() + 5) for _ in lines]
    writer.join()
    assert got == lines and all(type(line) is bytes for line in got)


def test_a_line_longer_than_the_cap_is_refused_after_shorter_ones_in_the_same_read(pipes):
    channel, _, reply_write = pipes
    os.write(reply_write, b"short\n" + b"x" * 150)
    assert channel.receive(time.monotonic() + 1) == b"short"
    with pytest.raises(ReplyTooLarge):
        channel.receive(time.monotonic() + 1)


def test_no_line_in_time_is_a_timeout_and_a_late_line_is_read_next(pipes):
    channel, _, reply_write = pipes
    os.write(reply_write, b"half")
    with pytest.raises(TimeoutError):
        channel.receive(time.monotonic() + 0.05)
    with pytest.raises(TimeoutError):
        channel.receive(time.monotonic() - 1)
    os.write(reply_write, b" and the rest\n")
    assert channel.receive(time.monotonic() + 5) == b"half and the rest"


def test_a_line_over_the_cap_is_refused_and_a_closed_pipe_is_closed(pipes):
    channel, _, reply_write = pipes
    os.write(reply_write, b"x" * 150)
    with pytest.raises(ReplyTooLarge):
        channel.receive(time.monotonic() + 5)
    os.close(reply_write)
    with pytest.raises((ChannelClosed, ReplyTooLarge)):
        channel.receive(time.monotonic() + 5)


def test_a_pipe_the_child_does_not_drain_times_the_write_out_and_keeps_the_rest(pipes):
    channel, request_read, _ = pipes
    big = b"r" * (1 << 20)  # more than a pipe holds
    with pytest.raises(TimeoutError):
        channel.send(big, time.monotonic() + 0.05)
    received = bytearray()

    def drain() -> None:
        while len(received) < len(big) + 5:
            received.extend(os.read(request_read, 1 << 16))

    reader = threading.Thread(target=drain)
    reader.start()
    channel.send(b"", time.monotonic() + 5)  # goes on where the timed-out write stopped
    channel.send(b"next\n", time.monotonic() + 5)
    reader.join(5)
    assert bytes(received) == big + b"next\n"


def test_a_closed_request_pipe_is_closed(pipes):
    channel, request_read, _ = pipes
    os.close(request_read)
    with pytest.raises(ChannelClosed):
        channel.send(b"hello\n", time.monotonic() + 5)
