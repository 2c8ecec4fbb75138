"""The numpy Philox models against Random123's published known-answer vectors (kat_vectors: philox4x32 and
philox4x64, 7 and 10 rounds), in the counter/key order Triton's philox_impl uses (c0..c3, k0, k1)."""
import numpy as np
import pytest

from tests.language.random.reference import philox4x32, philox4x64

PI_32 = ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0))
KAT_32 = [
    (10, (0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    (10, (0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (10, *PI_32, (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    (7, (0, 0, 0, 0), (0, 0), (0x5F6FB709, 0x0D893F64, 0x4F121F81, 0x4F730A48)),
    (7, (0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x5207DDC2, 0x45165E59, 0x4D8EE751, 0x8C52F662)),
    (7, *PI_32, (0x4DFCCABA, 0x190A87F0, 0xC47362BA, 0xB6B5242A)),
]
M64 = 0xFFFFFFFFFFFFFFFF
PI_64 = ((0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89),
         (0x452821E638D01377, 0xBE5466CF34E90C6C))
KAT_64 = [
    (10, (0, 0, 0, 0), (0, 0), (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B)),
    (10, (M64,) * 4, (M64,) * 2, (0x87B092C3013FE90B, 0x438C3C67BE8D0224, 0x9CC7D7C69CD777B6, 0xA09CAEBF594F0BA0)),
    (10, *PI_64, (0xA528F45403E61D95, 0x38C72DBD566E9788, 0xA5A1610E72FD18B5, 0x57BD43B5E52B7FE6)),
    (7, *PI_64, (0x513A366704EDF755, 0xF05D9924C07044D3, 0xBEF2CB9CBEA74C6C, 0x8DB948DE4CAA1F8A)),
]


@pytest.mark.parametrize("rounds, ctr, key, want", KAT_32)
def test_philox4x32_known_answers(rounds, ctr, key, want):
    got = philox4x32([np.array([w], np.uint32) for w in ctr], key, rounds)
    assert [int(w[0]) for w in got] == list(want)


@pytest.mark.parametrize("rounds, ctr, key, want", KAT_64)
def test_philox4x64_known_answers(rounds, ctr, key, want):
    got = philox4x64([np.array([w], np.uint64) for w in ctr], key, rounds)
    assert [int(w[0]) for w in got] == list(want)
