"""Progress: what fit shows while it trains.

verbose = 1 (the default): a progress bar (epoch, running loss, examples per
second) when standard output is a terminal or a notebook (a kernel sets `live_output`),
nothing otherwise, so piped output and files stay clean. verbose = 2: one printed line per epoch, always.
verbose = 0: silent. tqdm draws the bar and is imported only when one is shown.
"""
from __future__ import annotations

import shutil
import sys

from . import Callback

# Set by a notebook kernel: its standard output is shown live and redraws a line on '\r'.
live_output = False


def _num(x: float) -> str:
    return f"{x:.4g}"


class Progress(Callback):
    def __init__(self, verbose: int, epochs: int, examples: int):
        self.verbose, self.epochs, self.examples = verbose, epochs, examples
        self.bar = None

    def on_train_begin(self, run) -> None:
        if self.verbose == 1 and self.epochs and _is_terminal(sys.stdout):
            from tqdm import tqdm
            # The size is given (not probed by tqdm), so a terminal that reports none still
            # shows a bar: shutil falls back to 80 x 24.
            size = shutil.get_terminal_size()
            self.bar = tqdm(total=self.epochs * self.examples, unit="ex", unit_scale=True,
                            file=sys.stdout, ncols=min(size.columns, 100), nrows=max(size.lines, 2),
                            leave=True)

    def on_epoch_begin(self, run, epoch: int) -> None:
        self.seen, self.total = 0, 0.0
        if self.bar is not None:
            self.bar.set_description(f"epoch {epoch - run.first_epoch + 1}/{self.epochs}", refresh=False)

    def on_batch_end(self, run, batch: int, loss: float, size: int) -> None:
        if self.bar is not None:
            self.seen += size
            self.total += loss * size
            self.bar.set_postfix_str(f"loss {_num(self.total / self.seen)}", refresh=False)
            self.bar.update(size)

    def on_epoch_end(self, run, epoch: int, logs: dict) -> None:
        text = f"loss {_num(logs['loss'])}" + (f", val_loss {_num(logs['val_loss'])}"
                                                if "val_loss" in logs else "")
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
        elif self.verbose == 2:
            print(f"epoch {epoch - run.first_epoch + 1}/{self.epochs}: {text}, "
                  f"lr {_num(logs['lr'])}", flush=True)

    def on_train_end(self, run) -> None:
        self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _is_terminal(stream) -> bool:
    if live_output:
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
