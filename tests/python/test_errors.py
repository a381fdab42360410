"""The library's errors arrive as Python exceptions of the documented types."""

import pytest

import trellis


def test_hierarchy():
    assert issubclass(trellis.InputError, ValueError) and issubclass(trellis.InputError, trellis.Error)
    assert issubclass(trellis.UsageError, ValueError) and issubclass(trellis.UsageError, trellis.Error)
    assert issubclass(trellis.BackendUnavailable, RuntimeError)
    assert issubclass(trellis.DeviceError, RuntimeError)


def test_input_error_names_file_and_line(tmp_path):
    path = tmp_path / "bad.gr"
    path.write_text("p sp 3 2\na 1 2 1\na 2 x 1\n")
    with pytest.raises(trellis.InputError) as caught:
        trellis.graph.read(path)
    assert caught.value.file == str(path)
    assert caught.value.line == 3
    assert caught.value.problem and caught.value.problem in str(caught.value)
    assert str(path) in str(caught.value)


def test_missing_file_is_input_error(tmp_path):
    with pytest.raises(trellis.InputError, match="nothing.gr"):
        trellis.graph.read(tmp_path / "nothing.gr")


def test_unknown_backend_is_usage_error():
    g = trellis.graph.from_csr([0, 1, 1], [1], [1.0])
    with pytest.raises(trellis.UsageError, match="tpu"):
        trellis.graph.shortest_paths(g, 0, backend="tpu")


def test_cuda_where_there_is_none():
    if "cuda" in trellis.available_backends():
        pytest.skip("a CUDA device is usable here")
    g = trellis.graph.from_csr([0, 1, 1], [1], [1.0])
    with pytest.raises(trellis.BackendUnavailable):
        trellis.graph.shortest_paths(g, 0, backend="cuda")


def test_backends_listed():
    backends = trellis.available_backends()
    assert backends[:2] == ["reference", "cpu"]
    assert isinstance(trellis.__version__, str) and trellis.__version__.count(".") == 2
