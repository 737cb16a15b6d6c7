"""What the element-wise examples share: their common options (size, cores, tile, SoC) and what
they print after their check (the simulated time and the checkers' summary)."""
import argparse

import asc.runtime.config as config


def elementwise_parser(doc, size_help="elements"):
    """An argument parser with --size, --cores, --tile and -v/--soc-version."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--size", type=int, default=8 * 4096, help=size_help)
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--tile", type=int, default=1024, help="elements per tile")
    parser.add_argument("-v", "--soc-version", default=config.Platform.Ascend910B1.value,
                        choices=[p.value for p in config.Platform])
    return parser


def parse_and_set_platform(parser):
    """The parsed options, --size checked to split into whole tiles, the platform set."""
    args = parser.parse_args()
    if args.size % (args.cores * args.tile):
        parser.error("--size must be a multiple of --cores x --tile")
    config.set_platform(config.Backend.Model, config.Platform(args.soc_version))
    return args


def print_report(report):
    print(f"simulated: {report.cycles} cycles, {report.duration_us:.3f} us at "
          f"{report.clock_mhz:.0f} MHz on {report.platform}")
    print(f"checkers ({report.check.level}): {report.check.summary}")
