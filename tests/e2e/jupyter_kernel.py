"""Starts a kernel as Jupyter and VS Code do (jupyter_client's KernelManager
with the kernelspec of that name), runs CODE in it and prints what the code
printed. With --expect-death: the kernel must die before it answers; prints
what it wrote to stderr (cudnnenv's error, as Jupyter's log shows it).
Usage: jupyter_kernel.py NAME CODE [--expect-death]"""
import subprocess
import sys
import tempfile

from jupyter_client.manager import KernelManager


def main() -> int:
    name, code = sys.argv[1], sys.argv[2]
    expect_death = "--expect-death" in sys.argv[3:]
    manager = KernelManager(kernel_name=name)
    with tempfile.TemporaryFile() as err:
        manager.start_kernel(stderr=err, stdout=subprocess.DEVNULL)
        client = manager.client()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=60)
        except RuntimeError as error:
            manager.cleanup_resources()
            err.seek(0)
            text = err.read().decode("utf-8", "replace")
            if expect_death:
                sys.stdout.write(text)
                return 0
            sys.stderr.write("the kernel died: %s\n%s" % (error, text))
            return 1
        if expect_death:
            sys.stderr.write("the kernel started\n")
            manager.shutdown_kernel(now=True)
            return 1
        out = []

        def hook(message):
            if message["msg_type"] == "stream":
                out.append(message["content"]["text"])
            elif message["msg_type"] == "error":
                out.append("ERROR " + message["content"]["ename"] + ": " + message["content"]["evalue"] + "\n")

        reply = client.execute_interactive(code, output_hook=hook, timeout=60)
        client.stop_channels()
        manager.shutdown_kernel(now=True)
        sys.stdout.write("".join(out))
        return 0 if reply["content"]["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
