"""Stand-ins for other libraries' arrays in the tests that run without
them: an array that offers only DLPack (a CPU tensor, say) and one that
says it lives on a CUDA device (a CuPy array or CUDA tensor as the bindings
first see it)."""


class DLPackOnly:
    """An array that offers only the DLPack protocol (as a CPU tensor of
    another library would)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class OnCuda(DLPackOnly):
    """An array on CUDA device 0, with a shape and a dtype; its memory
    cannot be reached from here."""

    def __init__(self, array):
        super().__init__(array)
        self.shape, self.dtype = array.shape, array.dtype

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0

    def __dlpack__(self, **kwargs):
        raise BufferError("the data is on a CUDA device")
