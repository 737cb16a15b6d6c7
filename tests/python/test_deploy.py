"""The deployment files in docker/: compose.yaml passes `docker-compose config`, both files pass
yamllint, every document of kubernetes.yaml loads into the Kubernetes client's models with no
key left over, the daemons are bound safely (loopback publishing, or a token), the limits fit
--memory-budget, and every daemon command line in them starts the real aicore-simd.

Needs the Debian packages docker-compose, yamllint and python3-kubernetes (docs/docker.md)."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading

import pytest
import yaml

from conftest import REPO

SIMD = os.environ.get("AICORE_SIMD", os.path.join(REPO, "build", "bin", "aicore-simd"))
COMPOSE = os.path.join(REPO, "docker", "compose.yaml")
KUBERNETES = os.path.join(REPO, "docker", "kubernetes.yaml")

# yamllint's defaults, with the project's line length. document-start is off because a compose
# file has no `---` and kubernetes.yaml uses it only between documents.
YAMLLINT_CONFIG = """\
extends: default
rules:
  line-length: {max: 100}
  document-start: disable
"""

LOOPBACK_HOSTS = ("localhost", "::1", "[::1]")


def missing_tool(what, package):
    """Fail for a tool that scripts/setup-deps.sh installs: a skip would hide a gap in it."""
    pytest.fail(f"{what} is not installed, although scripts/setup-deps.sh lists the Debian package "
                f"{package}: run `make deps` (or apt-get install -y --no-install-recommends "
                f"{package})")


def need_simd():
    if not os.path.exists(SIMD):
        if "AICORE_SIMD" in os.environ:
            pytest.fail(f"daemon binary {SIMD} (from AICORE_SIMD) does not exist")
        pytest.skip(f"daemon binary {SIMD} does not exist (set AICORE_SIMD or build it)")


def is_loopback(host):
    return host in LOOPBACK_HOSTS or re.fullmatch(r"127(\.\d{1,3}){3}", host) is not None


def split_host_port(address):
    host, _, port = address.rpartition(":")
    return host, int(port)


# --- the daemon's flags -------------------------------------------------------------------------

_help_flags = None


def daemon_flags():
    """{flag: takes a value} read off `aicore-simd --help`, the parser's own list."""
    global _help_flags
    if _help_flags is None:
        need_simd()
        out = subprocess.run([SIMD, "--help"], capture_output=True, text=True, timeout=30,
                             check=True).stdout
        _help_flags = {}
        for m in re.finditer(r"^\s+(?:-\w,)?(--[a-z][\w-]*)( [A-Z][A-Z:_]*)?", out, re.M):
            _help_flags[m.group(1)] = m.group(2) is not None
        assert "--listen" in _help_flags and not _help_flags["--insecure"], out
    return _help_flags


def parse_flags(args, where):
    """{flag: value or True}; fails naming the flag when `aicore-simd --help` does not list it."""
    flags = daemon_flags()
    parsed = {}
    i = 0
    while i < len(args):
        arg = str(args[i])
        name, eq, value = arg.partition("=")
        assert name in flags, (f"{where}: {arg!r} is not a flag of aicore-simd (see "
                               f"`{SIMD} --help`)")
        if flags[name] and not eq:
            assert i + 1 < len(args), f"{where}: {name} needs a value"
            i += 1
            value = str(args[i])
        assert flags[name] or not eq, f"{where}: {name} takes no value, got {arg!r}"
        parsed[name] = value if flags[name] else True
        i += 1
    return parsed


def local_args(flags, token_file):
    """The same command line bound to loopback port 0, with a token file of this test's."""
    out = []
    for name, value in flags.items():
        if name in ("--listen", "--metrics-listen"):
            value = "127.0.0.1:0"
        elif name == "--token-file":
            value = token_file
        elif name in ("--tls-cert", "--tls-key", "--trace-root"):
            pytest.fail(f"{name} is used: give this test a stand-in file for it")
        out.append(name if value is True else f"{name}={value}")
    return out


def start_and_stop(args, where):
    """Starts aicore-simd with `args`, expects `listening on ...`, SIGTERMs it, expects exit 0."""
    need_simd()
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen([SIMD, *args], stdout=subprocess.PIPE, stderr=log, text=True)
    watchdog = threading.Timer(30, proc.kill)
    watchdog.start()
    try:
        first = proc.stdout.readline().strip()
        watchdog.cancel()
        if not first.startswith("listening on "):
            proc.kill()
            proc.wait()
            log.seek(0)
            pytest.fail(f"{where}: aicore-simd {' '.join(args)} did not start (first stdout "
                        f"line {first!r}, exit code {proc.returncode}, stderr: {log.read()})")
        host, _ = split_host_port(first[len("listening on "):])
        assert host == "127.0.0.1", first
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        log.seek(0)
        assert code == 0, f"{where}: exit code {code} after SIGTERM, stderr: {log.read()}"
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        log.close()


@pytest.fixture
def token_file(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("deploy-test:" + os.urandom(16).hex() + "\n")
    return str(path)


# --- sizes --------------------------------------------------------------------------------------

def daemon_bytes(text):
    """A BYTES flag value as the daemon reads it (K, M, G, T binary)."""
    m = re.fullmatch(r"(\d+)([KMGT]?)", text)
    assert m, f"--memory-budget {text!r} is not BYTES (digits, then K, M, G or T)"
    return int(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " ")


def kube_quantity(text):
    """A Kubernetes resource quantity (1Gi, 512M, 2, 500m) as a number."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m)?", str(text))
    assert m, f"{text!r} is not a Kubernetes quantity this test reads"
    scale = {None: 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
    scale.update({s: 1024 ** (i + 1) for i, s in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))})
    return float(m.group(1)) * scale[m.group(2)]


def compose_bytes(text):
    m = re.fullmatch(r"(\d+)([bkmg]?)", str(text).lower())
    assert m, f"memory {text!r} is not a compose byte value (digits, then b, k, m or g)"
    return int(m.group(1)) * 1024 ** " kmg".index(m.group(2).replace("b", "") or " ")


def assert_headroom(limit, budget, where):
    # What the budget does not count (decoding, gRPC buffers, the allocator) needs room too.
    headroom = max(512 * 2 ** 20, budget // 8)
    assert limit >= budget + headroom, (
        f"{where}: memory limit {limit / 2**30:.2f} GiB leaves less than {headroom / 2**30:.2f} "
        f"GiB above --memory-budget ({budget / 2**30:.2f} GiB): raise the limit or lower the "
        "budget")


# --- compose ------------------------------------------------------------------------------------

def compose_services():
    with open(COMPOSE) as f:
        services = yaml.safe_load(f)["services"]
    assert len(services) >= 2, f"{COMPOSE}: a farm has several daemons, found {list(services)}"
    return services


def published(port, where):
    """(host IP, container port) of one `ports:` entry, short or long syntax."""
    if isinstance(port, dict):
        return port.get("host_ip", ""), int(port["target"])
    parts = str(port).split("/")[0].rsplit(":", 2)
    assert len(parts) == 3, (f"{where}: port {port!r} names no host IP, so it is published on "
                             "every interface: write 127.0.0.1:HOST:CONTAINER")
    return parts[0], int(parts[2])


def test_compose_config_is_valid():
    tool = shutil.which("docker-compose")
    if tool is None:
        missing_tool("docker-compose", "docker-compose")
    result = subprocess.run([tool, "-f", COMPOSE, "config", "-q"], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"docker-compose config rejects {COMPOSE}: {result.stderr}"


def test_compose_publishes_on_loopback_only():
    for name, service in compose_services().items():
        where = f"{COMPOSE} service {name}"
        assert service.get("network_mode") != "host", f"{where}: host networking bypasses ports"
        flags = parse_flags(service["command"], where)
        authenticated = "--token-file" in flags or "--tls-cert" in flags
        grpc_port = split_host_port(flags["--listen"])[1]
        metrics_port = (split_host_port(flags["--metrics-listen"])[1]
                        if "--metrics-listen" in flags else None)
        ports = [published(p, where) for p in service.get("ports", [])]
        targets = {target for _, target in ports}
        assert grpc_port in targets, f"{where}: the daemon's port {grpc_port} is not published"
        assert metrics_port is None or metrics_port in targets, (
            f"{where}: the metrics port {metrics_port} is not published")
        for host, target in ports:
            assert target in (grpc_port, metrics_port), (
                f"{where}: port {target} is published but the daemon does not listen on it")
            # Metrics have no authentication at all; gRPC may go wider only behind a token/TLS.
            assert is_loopback(host) or (authenticated and target == grpc_port), (
                f"{where}: port {target} is published on {host or 'every interface'}: publish "
                "it on 127.0.0.1 only, or (gRPC only) give the daemon --token-file")


def test_compose_memory_limit_above_budget():
    for name, service in compose_services().items():
        where = f"{COMPOSE} service {name}"
        flags = parse_flags(service["command"], where)
        assert "--memory-budget" in flags, (
            f"{where}: set --memory-budget (the default, half the host's memory, ignores the "
            "container's limit)")
        assert flags.get("--workers", "0") != "0", (
            f"{where}: set --workers (the default counts the host's CPUs, not the container's)")
        limit = service.get("mem_limit") or service["deploy"]["resources"]["limits"]["memory"]
        assert_headroom(compose_bytes(limit), daemon_bytes(flags["--memory-budget"]), where)


def test_compose_commands_start_the_daemon(token_file):
    for name, service in compose_services().items():
        where = f"{COMPOSE} service {name}"
        start_and_stop(local_args(parse_flags(service["command"], where), token_file), where)


# --- yamllint -----------------------------------------------------------------------------------

def yamllint(*args, stdin=None):
    tool = shutil.which("yamllint")
    if tool is None:
        missing_tool("yamllint", "yamllint")
    return subprocess.run([tool, "-s", "-f", "parsable", "-d", YAMLLINT_CONFIG, *args],
                          input=stdin, capture_output=True, text=True, timeout=120)


def test_yamllint_passes():
    result = yamllint(COMPOSE, KUBERNETES)
    assert result.returncode == 0, f"yamllint findings:\n{result.stdout}{result.stderr}"


def test_yamllint_config_rejects_a_long_line():
    # The check above can fail: a 101-character line is a finding under this config.
    result = yamllint("-", stdin="key: " + "x" * 96 + "\n")
    assert result.returncode != 0 and "line too long" in result.stdout, result.stdout


# --- kubernetes ---------------------------------------------------------------------------------

def kube_client():
    try:
        import kubernetes.client
    except ImportError:
        missing_tool("the Kubernetes Python client", "python3-kubernetes")
    return kubernetes.client


def model_name(doc):
    version = doc["apiVersion"].split("/")[-1]
    return version[0].upper() + version[1:] + doc["kind"]


def pop_grpc_probes(doc, client):
    """Debian 12's client (22.6) predates gRPC probes (Kubernetes 1.24): its V1Probe has no
    `grpc`. Takes them out of a copy for the model and checks them against GRPCAction's fields."""
    doc = json.loads(json.dumps(doc))
    if hasattr(client, "V1GRPCAction"):
        return doc, []
    problems = []
    pod = doc.get("spec", {}).get("template", {}).get("spec", {})
    for c in pod.get("containers", []) + pod.get("initContainers", []):
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            action = c.get(probe, {}).pop("grpc", None)
            if action is None:
                continue
            where = f"containers[{c.get('name')}].{probe}.grpc"
            extra = set(action) - {"port", "service"}
            if extra:
                problems.append(f"{where}: unknown keys {sorted(extra)}")
            port = action.get("port")
            if type(port) is not int or not 1 <= port <= 65535:
                problems.append(f"{where}.port must be a port number (no named ports here)")
            if not isinstance(action.get("service", ""), str):
                problems.append(f"{where}.service must be a string")
    return doc, problems


def diff_paths(given, loaded, path=""):
    """Where `given` has what the model did not keep: a misspelt key, or a value of the wrong
    type."""
    if isinstance(given, dict) and isinstance(loaded, dict):
        out = []
        for key, value in given.items():
            if key not in loaded:
                out.append(f"{path}.{key}: not a field of the model (misspelt?)")
            else:
                out += diff_paths(value, loaded[key], f"{path}.{key}")
        return out
    if isinstance(given, list) and isinstance(loaded, list) and len(given) == len(loaded):
        return [d for i, (a, b) in enumerate(zip(given, loaded))
                for d in diff_paths(a, b, f"{path}[{i}]")]
    if given != loaded or type(given) is not type(loaded):
        return [f"{path}: {given!r} reads back as {loaded!r}"]
    return []


def model_problems(doc, client):
    """Loads one document into its model (V1Deployment, ...) and lists what it lost."""
    cls = model_name(doc)
    if not hasattr(client, cls):
        return [f"{doc['kind']} of {doc['apiVersion']}: no model {cls} in the client"]
    stripped, problems = pop_grpc_probes(doc, client)
    api = client.ApiClient()

    class Response:  # what ApiClient.deserialize reads: the JSON body
        data = json.dumps(stripped)

    try:
        model = api.deserialize(Response, cls)
    except (ValueError, TypeError) as e:  # a required field missing, a bad enum value
        return problems + [f"{cls}: {e}"]
    return problems + diff_paths(stripped, api.sanitize_for_serialization(model))


def kube_docs():
    with open(KUBERNETES) as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    for kind in ("Secret", "Deployment", "Service"):
        assert len(by_kind.get(kind, [])) == 1, (
            f"{KUBERNETES}: expected one {kind}, found {len(by_kind.get(kind, []))}")
    return docs, {k: v[0] for k, v in by_kind.items()}


def daemon_container(deployment):
    containers = deployment["spec"]["template"]["spec"]["containers"]
    named = [c for c in containers if "--listen" in " ".join(map(str, c.get("args", [])))]
    assert len(named) == 1, f"{KUBERNETES}: expected one container with --listen in its args"
    return named[0]


def kube_flags(container):
    return parse_flags(container["args"], f"{KUBERNETES} container {container['name']}")


def test_kubernetes_documents_load_into_models():
    client = kube_client()
    docs, _ = kube_docs()
    problems = [f"{model_name(d)} {d['metadata']['name']}: {p}"
                for d in docs for p in model_problems(d, client)]
    assert not problems, f"{KUBERNETES}:\n" + "\n".join(problems)


def _rename(obj, old, new):
    obj[new] = obj.pop(old)


# Each breaks the Deployment one way; the model check must name it.
TYPOS = {
    "misspelt key": (lambda c, d: _rename(c, "readinessProbe", "readinesProbe"),
                     ".readinesProbe: not a field"),
    "misspelt required key": (lambda c, d: _rename(c["ports"][0], "containerPort", "contanerPort"),
                              "Invalid value for `container_port`, must not be `None`"),
    "number as text": (lambda c, d: d["spec"].update(replicas="3"),
                       ".spec.replicas: '3' reads back as 3"),
    "misspelt grpc probe key": (lambda c, d: _rename(c["livenessProbe"]["grpc"], "port", "prot"),
                                "livenessProbe.grpc"),
}


@pytest.mark.parametrize("typo", sorted(TYPOS))
def test_kubernetes_model_check_catches_typos(typo):
    # The check above can fail: one mistake at a time, each named in the problems.
    client = kube_client()
    _, kinds = kube_docs()
    bad = json.loads(json.dumps(kinds["Deployment"]))
    break_it, expected = TYPOS[typo]
    break_it(bad["spec"]["template"]["spec"]["containers"][0], bad)
    problems = "\n".join(model_problems(bad, client))
    assert expected in problems, f"{typo}: {problems or 'no problem found'}"


def test_kubernetes_service_is_headless_on_the_daemon_port():
    _, kinds = kube_docs()
    service, deployment = kinds["Service"], kinds["Deployment"]
    assert service["spec"].get("clusterIP") == "None", (
        f"{KUBERNETES}: Service {service['metadata']['name']} needs clusterIP: None, so that DNS "
        "returns one record per pod for client-side balancing")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    selector = service["spec"]["selector"]
    assert selector and all(labels.get(k) == v for k, v in selector.items()), (
        f"{KUBERNETES}: the Service selector {selector} does not match the pods' labels {labels}")
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    container = daemon_container(deployment)
    listen_port = split_host_port(kube_flags(container)["--listen"])[1]
    by_name = {p.get("name"): p["containerPort"] for p in container["ports"]}
    assert listen_port in by_name.values(), f"containerPorts {by_name} lack --listen's"
    # Clients dial the pod IPs from DNS with the Service's port, so the two must agree.
    for p in service["spec"]["ports"]:
        target = p.get("targetPort", p["port"])
        assert p["port"] == listen_port and by_name.get(target, target) == listen_port, (
            f"{KUBERNETES}: Service port {p} does not lead to the daemon's port {listen_port}")


def test_kubernetes_probes_are_grpc_health_checks():
    _, kinds = kube_docs()
    spec = kinds["Deployment"]["spec"]["template"]["spec"]
    container = daemon_container(kinds["Deployment"])
    listen_port = split_host_port(kube_flags(container)["--listen"])[1]
    for probe in ("readinessProbe", "livenessProbe"):
        action = container.get(probe, {}).get("grpc")
        assert action is not None, f"{KUBERNETES}: {probe} must be a grpc probe"
        assert action["port"] == listen_port, (
            f"{KUBERNETES}: {probe} checks port {action['port']}, the daemon listens on "
            f"{listen_port}")
        # The daemon serves the overall status (""), which turns NOT_SERVING on SIGTERM.
        assert action.get("service", "") == "", f"{probe}: the daemon has no service {action}"
    live = container["livenessProbe"]
    assert (live.get("periodSeconds", 10) * live.get("failureThreshold", 3)
            > spec["terminationGracePeriodSeconds"]), (
        "livenessProbe would restart a daemon that is draining (NOT_SERVING) within the "
        "termination grace period")


def test_kubernetes_memory_and_cpu_fit_the_daemon_flags():
    _, kinds = kube_docs()
    spec = kinds["Deployment"]["spec"]["template"]["spec"]
    container = daemon_container(kinds["Deployment"])
    flags = kube_flags(container)
    where = f"{KUBERNETES} container {container['name']}"
    assert "--memory-budget" in flags and flags["--memory-budget"] != "0", (
        f"{where}: set --memory-budget (the default, half the node's memory, ignores the limit)")
    budget = daemon_bytes(flags["--memory-budget"])
    resources = container["resources"]
    limit = kube_quantity(resources["limits"]["memory"])
    assert_headroom(limit, budget, where)
    request = kube_quantity(resources["requests"]["memory"])
    assert budget < request <= limit, (
        f"{where}: memory request {request / 2**30:.2f} GiB should cover --memory-budget "
        f"({budget / 2**30:.2f} GiB) and stay within the limit")
    workers = int(flags.get("--workers", "0"))
    cpu = kube_quantity(resources["requests"]["cpu"])
    assert 1 <= workers <= max(1, round(cpu)), (
        f"{where}: --workers={workers} should be set and match the CPU request ({cpu})")
    grace_ms = int(flags.get("--shutdown-grace-ms", "10000"))
    assert spec["terminationGracePeriodSeconds"] >= grace_ms / 1000 + 5, (
        f"{where}: terminationGracePeriodSeconds must exceed --shutdown-grace-ms plus the "
        "daemon's 5 s bound on stopping")


def test_kubernetes_token_secret_is_mounted_and_used():
    _, kinds = kube_docs()
    secret, deployment = kinds["Secret"], kinds["Deployment"]
    assert not secret.get("data") and not secret.get("stringData"), (
        f"{KUBERNETES}: the Secret must not carry tokens (they would be in git); create it with "
        "kubectl create secret generic ... --from-file")
    pod = deployment["spec"]["template"]["spec"]
    container = daemon_container(deployment)
    flags = kube_flags(container)
    assert "--token-file" in flags, f"{KUBERNETES}: give the daemon --token-file"
    volumes = [v for v in pod.get("volumes", [])
               if v.get("secret", {}).get("secretName") == secret["metadata"]["name"]]
    assert len(volumes) == 1, f"{KUBERNETES}: no volume of Secret {secret['metadata']['name']}"
    volume = volumes[0]
    mounts = [m for m in container.get("volumeMounts", []) if m["name"] == volume["name"]]
    assert len(mounts) == 1 and mounts[0].get("readOnly"), (
        f"{KUBERNETES}: mount volume {volume['name']} once, readOnly")
    items = volume["secret"].get("items")
    files = [i["path"] for i in items] if items else None
    token_dir, _, token_name = flags["--token-file"].rpartition("/")
    assert token_dir == mounts[0]["mountPath"].rstrip("/") and (
        files is None or token_name in files), (
        f"{KUBERNETES}: --token-file={flags['--token-file']} is not a file of the Secret's mount "
        f"{mounts[0]['mountPath']} (items {files})")
    mode = volume["secret"].get("defaultMode", 0o644)
    readable = mode & 0o004 or (mode & 0o040 and pod.get("securityContext", {}).get("fsGroup"))
    assert readable, f"{KUBERNETES}: the token file (mode {mode:o}) is unreadable by the daemon"


def test_kubernetes_listen_is_authenticated():
    _, kinds = kube_docs()
    container = daemon_container(kinds["Deployment"])
    flags = kube_flags(container)
    host, _ = split_host_port(flags["--listen"])
    if not is_loopback(host):
        assert "--token-file" in flags or "--tls-cert" in flags, (
            f"{KUBERNETES}: --listen={flags['--listen']} with neither --token-file nor TLS")
    metrics = flags.get("--metrics-listen")
    opens_metrics = metrics is not None and not is_loopback(split_host_port(metrics)[0])
    assert "--insecure" not in flags or opens_metrics, (
        f"{KUBERNETES}: drop --insecure: the token authenticates --listen={flags['--listen']}, "
        "and without it the daemon refuses to start rather than serve everyone")


def test_kubernetes_args_start_the_daemon(token_file):
    _, kinds = kube_docs()
    container = daemon_container(kinds["Deployment"])
    start_and_stop(local_args(kube_flags(container), token_file),
                   f"{KUBERNETES} container {container['name']}")


def test_kubernetes_args_without_the_token_are_refused():
    # Without --token-file the daemon must refuse the non-loopback address rather than serve it
    # unauthenticated. 192.0.2.1 (a documentation address on no interface here) stands in for
    # 0.0.0.0: the check comes before any bind, and even if it did not, nothing could listen.
    need_simd()
    _, kinds = kube_docs()
    flags = kube_flags(daemon_container(kinds["Deployment"]))
    flags.pop("--token-file")
    flags["--listen"] = "192.0.2.1:0"
    args = [n if v is True else f"{n}={v}" for n, v in flags.items()]
    result = subprocess.run([SIMD, *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "not a loopback address" in result.stderr, (
        f"aicore-simd {' '.join(args)}: exit {result.returncode}, stdout {result.stdout!r}, "
        f"stderr {result.stderr!r}")
