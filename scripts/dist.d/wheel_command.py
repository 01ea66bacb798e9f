"""Adds the `hookc` command to a wheel that maturin built (scripts/dist).

The binary goes into the wheel's `<name>-<version>.data/scripts/`, which
pip installs into the environment's `bin/` (`Scripts\\` on Windows) as an
executable, so `pip install hookc-*.whl` gives `import hookc` and the
`hookc` command on PATH, with no Python start-up in front of a hook call.
The wheel's RECORD gets the file's hash and size (PEP 376/427).

    python3 wheel_command.py WHEEL BINARY
"""

import base64
import hashlib
import os
import sys
import tempfile
import zipfile


def record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main(wheel: str, binary: str) -> None:
    with open(binary, "rb") as f:
        command = f.read()
    with zipfile.ZipFile(wheel) as src:
        names = src.namelist()
        records = [n for n in names if n.endswith(".dist-info/RECORD")]
        if len(records) != 1:
            sys.exit(f"{wheel}: expected one RECORD, found {records}")
        record = records[0]
        data_dir = record[: -len(".dist-info/RECORD")] + ".data"
        script = f"{data_dir}/scripts/{os.path.basename(binary)}"
        if script in names:
            sys.exit(f"{wheel}: already has {script}")
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(wheel)), suffix=".whl")
        os.close(fd)
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                if info.filename == record:
                    continue
                dst.writestr(info, src.read(info.filename))
            entry = zipfile.ZipInfo(script, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100755 & 0xFFFF) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(entry, command)
            lines = src.read(record).decode().splitlines()
            rest = [l for l in lines if l and not l.startswith(record + ",")]
            rest.append(record_line(script, command))
            rest.append(f"{record},,")
            dst.writestr(src.getinfo(record), "\n".join(rest) + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, wheel)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
