#!/usr/bin/env python3
"""tools/flash.py: `make flash BOARD=<board>`, program a board with openFPGALoader.

Before writing anything it checks, from the board table tools/boards/<board>.py:
  1. openFPGALoader is installed (else: says what is missing and how to get it);
  2. a USB device with the board's own bridge VID:PID is attached (Linux sysfs),
     and none that is clearly another board (a product string another board
     table claims); otherwise it refuses and lists what it did find;
  3. this user may open that device (/dev/bus/usb/BBB/DDD); otherwise it says
     access is denied and shows the udev rule that grants it;
  4. on boards with a JTAG IDCODE (ECP5): `openFPGALoader --detect` reports the
     FPGA the bitstream was built for; otherwise it refuses with the IDCODE found.
Then it runs `openFPGALoader -b <board> --busdev-num <bus>:<dev> -f <bitstream>`
(write the configuration flash) on exactly the device it checked.
openFPGALoader's own output is always shown as it is; when it fails, its
exit code is passed on and the failure is named: access denied (with the udev
hint), no device, device busy, or its own message.

  tools/flash.py BOARD BITSTREAM [--dry-run]
  tools/flash.py --selftest      exercise every path against a fake sysfs tree
                                 and a fake openFPGALoader (no hardware needed)

Environment: OPENFPGALOADER (program name), AGGNET_USB_SYSFS (sysfs root of
USB devices, default /sys/bus/usb/devices), AGGNET_USB_DEVFS (default
/dev/bus/usb).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import boards  # noqa: E402


def say(msg):
    print("flash: " + msg, file=sys.stderr)


# ---------------------------------------------------------------- USB devices

def usb_devices(sysfs):
    """[{vid, pid, product, manufacturer, bus, dev, path}] from sysfs, or None."""
    if not os.path.isdir(sysfs):
        return None
    out = []
    for name in sorted(os.listdir(sysfs)):
        d = os.path.join(sysfs, name)

        def rd(f):
            try:
                with open(os.path.join(d, f)) as fh:
                    return fh.read().strip()
            except OSError:
                return ""
        vid, pid = rd("idVendor").lower(), rd("idProduct").lower()
        if not vid or ":" in name:          # interfaces have no idVendor
            continue
        out.append(dict(vid=vid, pid=pid, product=rd("product"), manufacturer=rd("manufacturer"),
                        bus=int(rd("busnum") or 0), dev=int(rd("devnum") or 0), path=name))
    return out


def describe(u):
    s = "%s:%s" % (u["vid"], u["pid"])
    if u["manufacturer"] or u["product"]:
        s += " '%s'" % " ".join(x for x in (u["manufacturer"], u["product"]) if x)
    return s + " (bus %03d device %03d)" % (u["bus"], u["dev"])


def claimed_by_other(u, board_name):
    """Name of another board (other hardware, not a configuration of the same
    PCB) whose table claims this device's product string."""
    mine = boards.hardware(board_name) if board_name else None
    for n in boards.names():
        if boards.hardware(n) == mine:
            continue
        b = boards.load(n)
        prod = getattr(b, "USB_PRODUCT", None)
        ids = [(v, p) for v, p, _ in b.USB]
        if prod and (u["vid"], u["pid"]) in ids and prod.lower() in u["product"].lower():
            return n
    return None


def which_boards(u):
    """'  <- ...' naming the boards this device could be the bridge of, or ''."""
    other = claimed_by_other(u, None)
    if other:
        hw = boards.hardware(other)
        alts = [n for n in boards.names() if boards.hardware(n) == hw]
        return "  <- the bridge of a %s (BOARD=%s)" % (boards.load(hw).TITLE, " or ".join(alts))
    cands = [n for n in boards.names()
             if (u["vid"], u["pid"]) in [(v, p) for v, p, _ in boards.load(n).USB]]
    if cands:
        return "  <- the kind of bridge BOARD=%s has" % " or ".join(cands)
    return ""


def udev_hint(board, u):
    vid, pid = (u["vid"], u["pid"]) if u else (board.USB[0][0], board.USB[0][1])
    return "\n".join([
        "access to the USB device was denied.  Let your user open it with a udev rule:",
        "  echo 'SUBSYSTEM==\"usb\", ATTRS{idVendor}==\"%s\", ATTRS{idProduct}==\"%s\", "
        "MODE=\"0660\", GROUP=\"plugdev\", TAG+=\"uaccess\"' \\" % (vid, pid),
        "    | sudo tee /etc/udev/rules.d/60-aggnet-%s.rules" % board.__name__.split(".")[-1],
        "  sudo udevadm control --reload-rules && sudo udevadm trigger",
        "  sudo usermod -aG plugdev $USER    # then log in again, and re-plug the board",
        "(openFPGALoader ships a complete rule file, 99-openfpgaloader.rules; Debian's",
        " fpga-icestorm installs one for 0403:6010 in /lib/udev/rules.d/40-fpga-icestorm.rules)",
    ])


# ---------------------------------------------------------------- openFPGALoader

PAT_ACCESS = re.compile(r"LIBUSB_ERROR_ACCESS|[Aa]ccess denied|[Pp]ermission denied|"
                        r"insufficient permissions|unable to open ftdi device: -4|Operation not permitted")
PAT_NODEV = re.compile(r"device not found|unable to open ftdi device: -3|[Nn]o device found|"
                       r"[Nn]o cable|LIBUSB_ERROR_NO_DEVICE|[Cc]able not found")
PAT_BUSY = re.compile(r"LIBUSB_ERROR_BUSY|[Rr]esource busy|unable to claim|ftdi device: -5")


def run_ofl(cmd):
    """Run openFPGALoader, showing its output as it comes; (rc, output)."""
    print("flash: " + " ".join(cmd), file=sys.stderr)
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as e:
        return 127, str(e)
    buf = []
    for line in p.stdout:
        sys.stderr.write("  | " + line)
        buf.append(line)
    return p.wait(), "".join(buf)


def explain_failure(board, rc, out, u):
    if PAT_ACCESS.search(out):
        say("openFPGALoader could not open the board (exit %d): permission problem, "
            "not a missing board." % rc)
        say(udev_hint(board, u))
    elif PAT_BUSY.search(out):
        say("openFPGALoader found the board but it is busy (exit %d): another program "
            "holds it (a serial terminal, another openFPGALoader); close it and retry." % rc)
    elif PAT_NODEV.search(out):
        say("openFPGALoader found no %s on the USB (exit %d); its own words are above."
            % (board.TITLE, rc))
    else:
        say("openFPGALoader failed (exit %d); its own words are above." % rc)


def idcode_names():
    try:
        import json
        import pincheck
        db = pincheck._trellis_db()
        with open(os.path.join(db, "devices.json")) as f:
            devs = json.load(f)["families"]["ECP5"]["devices"]
        return {v["idcode"].lower(): k for k, v in devs.items()}
    except Exception:   # only used to name what was found
        return {}


# ---------------------------------------------------------------- main flow

def flash(name, bitstream, dry_run=False):
    try:
        board = boards.load(name)
    except KeyError as e:
        say(str(e))
        return 2
    ofl = os.environ.get("OPENFPGALOADER", "openFPGALoader")
    if not os.path.exists(bitstream):
        say("no bitstream %s: run `make bitstream BOARD=%s` first" % (bitstream, name))
        return 2
    if shutil.which(ofl) is None:
        say("%s is not installed, so nothing was flashed." % ofl)
        say("  Debian 12 / Ubuntu 22.04 and later: sudo apt-get install openfpgaloader")
        say("  elsewhere: https://github.com/trabucayre/openFPGALoader (build from source)")
        say("  the bitstream is ready: %s" % bitstream)
        return 1

    sysfs = os.environ.get("AGGNET_USB_SYSFS", "/sys/bus/usb/devices")
    devfs = os.environ.get("AGGNET_USB_DEVFS", "/dev/bus/usb")
    ids = [(v.lower(), p.lower()) for v, p, _ in board.USB]
    want = ", ".join("%s:%s (%s)" % (v, p, w) for v, p, w in board.USB) or "none listed"
    devs = usb_devices(sysfs)
    chosen = None
    if not board.USB:
        say("%s has no USB bridge of its own in its table: program it with your own "
            "cable (openFPGALoader -c <cable> -f %s)" % (board.TITLE, bitstream))
        return 1
    if devs is None:
        say("cannot list USB devices (%s is missing: not Linux?); skipping the VID:PID check" % sysfs)
    else:
        match = [u for u in devs if (u["vid"], u["pid"]) in ids]
        if not match:
            say("BOARD=%s expects its USB bridge %s, and no such device is attached." % (name, want))
            others = [u for u in devs if u["vid"] not in ("1d6b",)]   # skip root hubs
            if others:
                say("USB devices found:")
                for u in others:
                    say("  %s%s" % (describe(u), which_boards(u)))
            else:
                say("no USB devices at all besides root hubs: is the board plugged in, with a data cable?")
            say("refusing to flash.")
            return 1
        good = [u for u in match if not claimed_by_other(u, name)]
        prod = getattr(board, "USB_PRODUCT", None)
        if prod:
            named = [u for u in good if prod.lower() in u["product"].lower()]
            if named:
                good = named
            elif good:
                say("warning: the %s's product string should contain '%s'; found %s "
                    "(re-programmed EEPROM?)" % (board.TITLE, prod, ", ".join(describe(u) for u in good)))
        if not good:
            say("BOARD=%s, but the attached device is not that board: %s; refusing to flash." % (
                name, "; ".join("%s is %s" % (describe(u), which_boards(u).strip(" <-"))
                                for u in match)))
            return 1
        if len(good) > 1:
            say("%d matching devices: %s; using the first (unplug the others to choose)"
                % (len(good), "; ".join(describe(u) for u in good)))
        chosen = good[0]
        say("found %s" % describe(chosen))
        node = os.path.join(devfs, "%03d" % chosen["bus"], "%03d" % chosen["dev"])
        if os.path.exists(node) and not os.access(node, os.R_OK | os.W_OK):
            say("%s is not readable and writable by this user." % node)
            say(udev_hint(board, chosen))
            return 1

    sel = ["--busdev-num", "%d:%d" % (chosen["bus"], chosen["dev"])] if chosen else []
    want_id = getattr(board, "FPGA_IDCODE", None)
    if want_id:
        rc, out = run_ofl([ofl, "-b", board.OPENFPGALOADER] + sel + ["--detect"])
        if rc != 0:
            explain_failure(board, rc, out, chosen)
            return rc
        found = re.findall(r"idcode\s+(0x[0-9a-fA-F]+)", out)
        if not found:
            say("openFPGALoader --detect reported no FPGA IDCODE; refusing to flash.")
            return 1
        names = idcode_names()
        if want_id.lower() not in [f.lower() for f in found]:
            say("the FPGA found has IDCODE %s%s, but BOARD=%s was built for %s%s: refusing to flash."
                % (found[0], (" (%s)" % names[found[0].lower()]) if found[0].lower() in names else "",
                   name, want_id, (" (%s)" % names[want_id.lower()]) if want_id.lower() in names else ""))
            return 1
        say("FPGA IDCODE %s matches %s" % (want_id, board.TITLE))
    else:
        say("%s: the iCE40 is configured from its SPI flash, which has no FPGA IDCODE to check"
            % board.TITLE)

    cmd = [ofl, "-b", board.OPENFPGALOADER] + sel + ["-f", bitstream]
    if dry_run:
        say("dry run: " + " ".join(cmd))
        return 0
    rc, out = run_ofl(cmd)
    if rc != 0:
        explain_failure(board, rc, out, chosen)
        return rc
    say("done: %s written to the %s's flash" % (bitstream, board.TITLE))
    return 0


# ---------------------------------------------------------------- self-test

FAKE_OFL = r"""#!/bin/sh
# fake openFPGALoader for tools/flash.py --selftest: behaviour from $FAKE_MODE
case "$FAKE_MODE" in
  perm)   echo "unable to open ftdi device: -4 (usb_open() failed)"; echo "JTAG init failed with: unable to open ftdi device"; exit 1;;
  nodev)  echo "unable to open ftdi device: -3 (device not found)"; exit 1;;
  busy)   echo "unable to claim usb device. Make sure the default FTDI driver is not in use"; exit 1;;
esac
for a in "$@"; do
  if [ "$a" = "--detect" ]; then
    printf 'index 0:\n\tidcode %s\n\tmanufacturer lattice\n\tfamily ECP5\n' "${FAKE_IDCODE:-0x41113043}"; exit 0
  fi
done
echo "write to flash"; echo "Done"; exit 0
"""


def selftest():
    tmp = tempfile.mkdtemp(prefix="aggnet-flash-")
    bit = os.path.join(tmp, "x.bit")
    open(bit, "w").close()
    ofl = os.path.join(tmp, "openFPGALoader")
    with open(ofl, "w") as f:
        f.write(FAKE_OFL)
    os.chmod(ofl, 0o755)

    def mksys(devs):
        root = tempfile.mkdtemp(dir=tmp)
        for i, (vid, pid, prod) in enumerate(devs):
            d = os.path.join(root, "1-%d" % (i + 1))
            os.makedirs(d)
            for k, v in (("idVendor", vid), ("idProduct", pid), ("product", prod),
                         ("manufacturer", "FTDI"), ("busnum", "1"), ("devnum", str(i + 2))):
                with open(os.path.join(d, k), "w") as f:
                    f.write(v + "\n")
        return root

    ft2232 = ("0403", "6010", "Dual RS232-HS")
    icebreaker = ("0403", "6010", "iCEBreaker V1.0e")
    ulx3s = ("0403", "6015", "ULX3S FPGA 85K v3.0.3")
    cases = [
        # name, board, env, sysfs devices, expected rc (0 or nonzero), text that must appear
        ("not installed", "icestick", {"OPENFPGALOADER": "no-such-openfpgaloader"}, [ft2232], 1, "is not installed"),
        ("no device", "ulx3s", {}, [], 1, "no such device is attached"),
        ("wrong board by VID:PID", "ulx3s", {}, [icebreaker], 1, "(BOARD=icebreaker or icebreaker_uart)"),
        ("wrong board by product", "icestick", {}, [icebreaker], 1, "is the bridge of a 1BitSquared iCEBreaker"),
        ("ok iCE40", "icebreaker", {}, [icebreaker], 0, "done:"),
        ("ok configuration of the same PCB", "icebreaker_uart", {}, [icebreaker], 0, "done:"),
        ("wrong board names every configuration", "hx8k_uart", {}, [icebreaker],
         1, "(BOARD=icebreaker or icebreaker_uart)"),
        ("ok ECP5", "ulx3s", {}, [ulx3s], 0, "matches"),
        ("wrong FPGA", "ulx3s", {"FAKE_IDCODE": "0x41111043"}, [ulx3s], 1, "refusing to flash"),
        ("permission", "icestick", {"FAKE_MODE": "perm"}, [ft2232], 1, "udev rule"),
        ("vanished", "icestick", {"FAKE_MODE": "nodev"}, [ft2232], 1, "found no"),
        ("busy", "hx8k", {"FAKE_MODE": "busy"}, [ft2232], 1, "busy"),
    ]
    fails = 0
    for title, bname, env, devs, want_rc, text in cases:
        e = dict(os.environ)
        e.update({"OPENFPGALOADER": ofl, "AGGNET_USB_SYSFS": mksys(devs),
                  "AGGNET_USB_DEVFS": os.path.join(tmp, "nodevfs")})
        e.update(env)
        p = subprocess.run([sys.executable, os.path.abspath(__file__), bname, bit],
                           env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ok = ((p.returncode == 0) == (want_rc == 0)) and text in p.stdout
        if not ok:
            fails += 1
            print("flash selftest FAILED: %s (rc %d, wanted %s, text %r)\n%s"
                  % (title, p.returncode, "0" if want_rc == 0 else "non-zero", text, p.stdout))
    shutil.rmtree(tmp, ignore_errors=True)
    if fails:
        return 1
    print("flash selftest ok: %d cases" % len(cases))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("board", nargs="?")
    ap.add_argument("bitstream", nargs="?")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if not a.board or not a.bitstream:
        ap.error("BOARD and BITSTREAM are required")
    return flash(a.board, a.bitstream, a.dry_run)


if __name__ == "__main__":
    sys.exit(main())
