"""The zoo's models written in plain torch: convolutional networks and DLRM-style recommendation models."""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class LeNet(nn.Module):
    def __init__(self, c=6):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, c, 5, padding=2), nn.Conv2d(c, 2 * c, 5)
        self.fc1, self.fc2 = nn.Linear(2 * c * 25, 64), nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.tanh(self.conv1(x)), 2)
        x = F.avg_pool2d(torch.tanh(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def _conv_bn(cin, cout, stride=1, groups=1, k=3):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class VGG(nn.Module):
    def __init__(self, widths=(8, 16, 32), classes=10):
        super().__init__()
        layers, cin = [], 3
        for w in widths:
            layers += [_conv_bn(cin, w), _conv_bn(w, w), nn.MaxPool2d(2)]
            cin = w
        self.features, self.fc = nn.Sequential(*layers), nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, stride):
        super().__init__()
        cout = 4 * mid
        self.a, self.b = _conv_bn(cin, mid, k=1), _conv_bn(mid, mid, stride)
        self.c = nn.Sequential(nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.skip = (nn.Identity() if cin == cout and stride == 1 else
                     nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)))

    def forward(self, x):
        return F.relu(self.c(self.b(self.a(x))) + self.skip(x))


class BottleneckResNet(nn.Module):
    def __init__(self, mids=(8, 16), classes=10):
        super().__init__()
        self.stem = _conv_bn(3, 16, 2, k=7)
        blocks, cin = [], 16
        for i, m in enumerate(mids):
            blocks.append(Bottleneck(cin, m, 1 if i == 0 else 2))
            cin = 4 * m
        self.blocks, self.fc = nn.Sequential(*blocks), nn.Linear(cin, classes)

    def forward(self, x):
        x = self.blocks(F.max_pool2d(self.stem(x), 3, 2, 1))
        return self.fc(x.mean((2, 3)))


class InvertedResidual(nn.Module):
    """MobileNetV2/EfficientNet's block: expand, depthwise, squeeze-and-excite, project."""

    def __init__(self, c, expand=4):
        super().__init__()
        h = c * expand
        self.expand, self.dw = _conv_bn(c, h, k=1), _conv_bn(h, h, groups=h)
        self.se1, self.se2 = nn.Conv2d(h, h // 4, 1), nn.Conv2d(h // 4, h, 1)
        self.project = nn.Sequential(nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        h = self.dw(self.expand(x))
        s = torch.sigmoid(self.se2(F.silu(self.se1(h.mean((2, 3), keepdim=True)))))
        return x + self.project(h * s)


class MobileNet(nn.Module):
    def __init__(self, c=16, blocks=2, classes=10):
        super().__init__()
        self.stem = _conv_bn(3, c, 2)
        self.blocks, self.fc = nn.Sequential(*(InvertedResidual(c) for _ in range(blocks))), nn.Linear(c, classes)

    def forward(self, x):
        return self.fc(self.blocks(self.stem(x)).mean((2, 3)))


class UNet(nn.Module):
    """Two levels down, two up (transposed convolutions), skip connections by concatenation."""

    def __init__(self, c=8):
        super().__init__()
        self.d1, self.d2, self.mid = _conv_bn(3, c), _conv_bn(c, 2 * c), _conv_bn(2 * c, 4 * c)
        self.up2, self.u2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, 2), _conv_bn(4 * c, 2 * c)
        self.up1, self.u1 = nn.ConvTranspose2d(2 * c, c, 2, 2), _conv_bn(2 * c, c)
        self.out = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        m = self.mid(F.max_pool2d(b, 2))
        b = self.u2(torch.cat([self.up2(m), b], 1))
        return self.out(self.u1(torch.cat([self.up1(b), a], 1)))


class TCN(nn.Module):
    """A temporal convolutional network: dilated causal 1-D convolutions with residuals."""

    def __init__(self, c=16, levels=3, cin=4):
        super().__init__()
        self.inp = nn.Conv1d(cin, c, 1)
        self.convs = nn.ModuleList(nn.Conv1d(c, c, 3, dilation=2 ** i) for i in range(levels))
        self.fc = nn.Linear(c, 5)

    def forward(self, x):
        x = self.inp(x)
        for conv in self.convs:
            x = x + F.gelu(conv(F.pad(x, (2 * conv.dilation[0], 0))))
        return self.fc(x[:, :, -1])


class Conv3dNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.c1, self.bn = nn.Conv3d(1, c, 3, padding=1), nn.BatchNorm3d(c)
        self.c2, self.fc = nn.Conv3d(c, 2 * c, 3, stride=2, padding=1), nn.Linear(2 * c, 4)

    def forward(self, x):
        x = F.relu(self.c2(F.relu(self.bn(self.c1(x)))))
        return self.fc(x.mean((2, 3, 4)))


class DLRM(nn.Module):
    """DLRM: an embedding bag per sparse feature, a bottom MLP for the dense features, the pairwise dot products of
    all their vectors, a top MLP.  ``mode`` is the bags' pooling; ``weighted`` gives each index a weight."""

    def __init__(self, tables, rows, d, n_dense, bottom, top, mode="sum", weighted=False):
        super().__init__()
        self.weighted = weighted
        self.bags = nn.ModuleList(nn.EmbeddingBag(rows, d, mode=mode) for _ in range(tables))
        dims = [n_dense, *bottom, d]
        self.bottom = nn.Sequential(*[m for a, b in zip(dims, dims[1:]) for m in (nn.Linear(a, b), nn.ReLU())])
        n = tables + 1
        dims = [d + n * (n - 1) // 2, *top]
        layers = [m for a, b in zip(dims, dims[1:]) for m in (nn.Linear(a, b), nn.ReLU())]
        self.top = nn.Sequential(*layers, nn.Linear(dims[-1], 1))

    def forward(self, dense, indices, offsets, weights=None):
        feats = [self.bottom(dense)]
        for i, bag in enumerate(self.bags):
            feats.append(bag(indices[i], offsets[i], per_sample_weights=weights[i] if self.weighted else None))
        z = torch.stack(feats, dim=1)
        inter = torch.bmm(z, z.transpose(1, 2))
        i, j = torch.tril_indices(z.shape[1], z.shape[1], offset=-1)
        return torch.sigmoid(self.top(torch.cat([feats[0], inter[:, i, j]], dim=1)))


def _dlrm(size, mode="sum", weighted=False):
    if size == "tiny":
        tables, rows, d, batch, pool = 8, 1000, 16, 8, 4
        kw = dict(n_dense=13, bottom=[32], top=[32])
    else:   # the Criteo-style configuration: 26 tables, 13 dense features, MLPs 512-256-64 and 512-256
        tables, rows, d, batch, pool = 26, 100_000, 64, 128, 20
        kw = dict(n_dense=13, bottom=[512, 256], top=[512, 256])
    model = DLRM(tables, rows, d, mode=mode, weighted=weighted, **kw)
    indices = torch.randint(0, rows, (tables, batch * pool))
    offsets = torch.arange(0, batch * pool, pool).expand(tables, batch).contiguous()
    args = [torch.randn(batch, kw["n_dense"]), indices, offsets]
    if weighted:
        args.append(torch.rand(tables, batch * pool))
    return model, tuple(args)


def _real_image(tiny, real, c=3, hw_tiny=32, hw_real=224):
    def build(size):
        if size == "tiny":
            return tiny(), (torch.randn(2, c, hw_tiny, hw_tiny),)
        return real(), (torch.randn(8, c, hw_real, hw_real),)
    return build


# name: (family, builder(size) -> (model, positional inputs))
MODELS = {
    "lenet": ("cnn", lambda size: (LeNet(), (torch.randn(2 if size == "tiny" else 64, 1, 28, 28),))),
    "vgg": ("cnn", _real_image(VGG, lambda: VGG((64, 128, 256, 512), 1000))),
    "resnet-bottleneck": ("cnn", _real_image(BottleneckResNet, lambda: BottleneckResNet((64, 128, 256, 512), 1000))),
    "mobilenet-se": ("cnn", _real_image(MobileNet, lambda: MobileNet(32, 6, 1000))),
    "unet": ("cnn", _real_image(UNet, lambda: UNet(64), hw_real=128)),
    "tcn": ("cnn", lambda size: (TCN() if size == "tiny" else TCN(128, 8, 32),
                                 (torch.randn(2, 4, 32) if size == "tiny" else torch.randn(16, 32, 1024),))),
    "conv3d": ("cnn", lambda size: (Conv3dNet() if size == "tiny" else Conv3dNet(32),
                                    (torch.randn(2, 1, 8, 8, 8) if size == "tiny"
                                     else torch.randn(4, 1, 32, 64, 64),))),
    "dlrm": ("recommendation", lambda size: _dlrm(size)),
    "dlrm-mean": ("recommendation", lambda size: _dlrm(size, mode="mean")),
    "dlrm-max": ("recommendation", lambda size: _dlrm(size, mode="max")),
    "dlrm-weighted": ("recommendation", lambda size: _dlrm(size, weighted=True)),
}
