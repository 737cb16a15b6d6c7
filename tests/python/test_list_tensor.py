"""asc.TensorDesc and asc.ListTensorDesc (asc-api.md 4.16): a list of GM tensors described in GM
(ptr_offset word, descriptors of dim + shape words, the pointer table; docs/frontend.md), read
with scalar loads. The kernel writes the device addresses of its arguments into the table, then
reads the tensors back through the list."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

# Two tensors: shapes (4, 8) and (16,); descriptors are 3 and 2 words, the table at word 6.
SHAPES = [(4, 8), (16,)]


def list_words(shape_size=None):
    words = [0]
    for i, shape in enumerate(SHAPES):
        desc = [len(shape)] + list(shape)
        if shape_size is not None:
            desc += [0] * (shape_size - len(desc))
        words += desc
    words[0] = len(words) * 8
    return np.array(words + [0, 0], dtype=np.uint64)


@asc.jit
def list_kernel(lst: asc.GlobalAddress, a: asc.GlobalAddress, b: asc.GlobalAddress,
                out: asc.GlobalAddress, table: asc.ConstExpr[int], shape_size: asc.ConstExpr[int]):
    words = asc.GlobalTensor()
    words.set_global_buffer(lst)
    ga, gb = asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    words.set_value(table, ga.get_phy_addr())
    words.set_value(table + 1, gb.get_phy_addr())
    lst_desc = asc.ListTensorDesc(data=lst, length=(table + 2) * 8, shape_size=shape_size)
    lst_desc.get_size()
    info = asc.GlobalTensor()
    info.set_global_buffer(out)
    desc = asc.TensorDesc(asc.float32)
    desc.set_shape_addr(asc.array(asc.uint64, 8))
    lst_desc.get_desc(desc, 0)
    info.set_value(0, desc.get_dim())
    info.set_value(1, desc.get_shape(0))
    info.set_value(2, desc.get_shape(1))
    first = desc.get_data_obj()
    info.set_value(3, first.get_value(5))
    lst_desc.get_desc(desc, 1)
    info.set_value(4, desc.get_dim())
    info.set_value(5, desc.get_shape(0))
    info.set_value(6, desc.get_index())
    second = asc.GlobalTensor()
    second.set_global_buffer(lst_desc.get_data_ptr(1, asc.float32))
    info.set_value(7, second.get_value(15))


@pytest.mark.parametrize("shape_size", [None, 4])
def test_a_list_reads_dims_shapes_and_data_pointers(device, shape_size):
    lst = list_words(shape_size)
    table = int(lst[0]) // 8
    a = np.arange(32, dtype=np.float32)
    b = np.arange(16, dtype=np.float32) * 10
    out = np.zeros(8, dtype=np.uint64)
    list_kernel[1, rt.current_stream()](lst, a, b, out, table,
                                        0xFFFFFFFF if shape_size is None else shape_size)
    np.testing.assert_array_equal(out, [2, 4, 8, 5, 1, 16, 1, 150])


@asc.jit
def runtime_index_kernel(lst: asc.GlobalAddress, i: int):
    lst_desc = asc.ListTensorDesc()
    lst_desc.init(lst)
    desc = asc.TensorDesc()
    lst_desc.get_desc(desc, i)


def test_a_traced_index_needs_the_fixed_descriptor_length(device):
    with pytest.raises(Exception, match="a traced index needs the descriptors' fixed length"):
        runtime_index_kernel[1, rt.current_stream()](list_words(), 1)
