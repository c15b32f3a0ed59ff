{{/* Chart name, at most 63 characters. */}}
{{- define "kubectl-multicluster.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: the release name, prefixed to the chart name unless it already contains it. */}}
{{- define "kubectl-multicluster.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "kubectl-multicluster.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kubectl-multicluster.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: mc-server
{{- end }}

{{- define "kubectl-multicluster.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kubectl-multicluster.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "kubectl-multicluster.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kubectl-multicluster.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "kubectl-multicluster.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* "true" when the store is an external MySQL/PostgreSQL, "" for the embedded SQLite. */}}
{{- define "kubectl-multicluster.externalDatabase" -}}
{{- if .Values.storage.existingSecret }}true
{{- else if and .Values.storage.url (not (hasPrefix "sqlite:" .Values.storage.url)) }}true
{{- end }}
{{- end }}

{{/* The Secret holding the storage URL, "" when there is none. */}}
{{- define "kubectl-multicluster.storageSecretName" -}}
{{- if .Values.storage.existingSecret }}
{{- .Values.storage.existingSecret }}
{{- else if .Values.storage.url }}
{{- printf "%s-storage" (include "kubectl-multicluster.fullname" .) }}
{{- end }}
{{- end }}

{{/* Whether the SQLite store lives on a PersistentVolumeClaim. */}}
{{- define "kubectl-multicluster.pvc" -}}
{{- if and (not (include "kubectl-multicluster.externalDatabase" .)) .Values.storage.persistence.enabled }}true{{ end }}
{{- end }}

{{/* Checks that fail rendering with one clear line. */}}
{{- define "kubectl-multicluster.validate" -}}
{{- if and (gt (int .Values.replicas) 1) (not (include "kubectl-multicluster.externalDatabase" .)) }}
{{- fail (printf "replicas=%d needs an external database: set storage.url to a mysql:// or postgres:// URL (or storage.existingSecret); the embedded SQLite store cannot be shared between replicas" (int .Values.replicas)) }}
{{- end }}
{{- if and .Values.token (lt (len (toString .Values.token)) 16) }}
{{- fail "token must be at least 16 characters (or empty: the chart generates one)" }}
{{- end }}
{{- if and .Values.tls.plainHTTP .Values.tls.secretName }}
{{- fail "tls.plainHTTP and tls.secretName exclude each other: remove one" }}
{{- end }}
{{- if and .Values.tls.plainHTTP .Values.authentication.clientCA.configMapName }}
{{- fail "authentication.clientCA needs HTTPS (client certificates come in the TLS handshake): remove tls.plainHTTP or the client CA" }}
{{- end }}
{{- if lt (int .Values.replicas) 0 }}
{{- fail "replicas must not be negative" }}
{{- end }}
{{- $names := list .Values.master.name }}
{{- range .Values.members }}
{{- if not .name }}{{ fail "every entry of members needs a name" }}{{ end }}
{{- if not .kubeconfigSecret }}{{ fail (printf "members: %s needs kubeconfigSecret (a Secret holding its kubeconfig)" .name) }}{{ end }}
{{- if has .name $names }}{{ fail (printf "members: the cluster name %s is used twice (the master is %s)" .name $.Values.master.name) }}{{ end }}
{{- $names = append $names .name }}
{{- end }}
{{- end }}

{{/* A `resources` allow-list from a list of type names. */}}
{{- define "kubectl-multicluster.allowList" -}}
{{- $out := list }}
{{- range . }}{{ $out = append $out (dict "rType" .) }}{{ end }}
{{- toJson $out }}
{{- end }}

{{/* The server configuration file. The storage URL is passed as MC_STORAGE. */}}
{{- define "kubectl-multicluster.config" -}}
{{- $master := dict "clusterName" .Values.master.name "isMaster" true "configPath" "" }}
{{- with .Values.master.labels }}{{ $_ := set $master "labels" . }}{{ end }}
{{- with .Values.master.resources }}{{ $_ := set $master "resources" (include "kubectl-multicluster.allowList" . | fromJsonArray) }}{{ end }}
{{- $clusters := list (dict "metadata" $master) }}
{{- range .Values.members }}
{{- $m := dict "clusterName" .name "configPath" (printf "/etc/mc/kubeconfigs/%s" .name) "insecure" (default false .insecure) }}
{{- with .context }}{{ $_ := set $m "context" . }}{{ end }}
{{- with .labels }}{{ $_ := set $m "labels" . }}{{ end }}
{{- with .resources }}{{ $_ := set $m "resources" (include "kubectl-multicluster.allowList" . | fromJsonArray) }}{{ end }}
{{- $clusters = append $clusters (dict "metadata" $m) }}
{{- end }}
{{- /* The admin token comes as MC_TOKEN from the token Secret, not through this file. */}}
{{- $server := dict "port" 31888 "bind" "0.0.0.0" "anonymousRead" .Values.anonymousRead "metricsAuth" .Values.metricsAuth }}
{{- with .Values.tokens }}{{ $_ := set $server "tokens" . }}{{ end }}
{{- if .Values.tls.plainHTTP }}{{ $_ := set $server "plainHTTP" true }}
{{- else if not .Values.tls.secretName }}
{{- /* The certificate mc-server makes names the Service too, as Pods and Ingresses reach it. */}}
{{- $svc := printf "%s.%s.svc" (include "kubectl-multicluster.fullname" .) .Release.Namespace }}
{{- $_ := set $server "tlsSANs" (concat (list $svc (printf "%s.cluster.local" $svc)) .Values.tls.sans) }}
{{- end }}
{{- $sync := dict "excludeGroups" .Values.sync.excludeGroups "excludeResources" .Values.sync.excludeResources "redactSecrets" .Values.sync.redactSecrets }}
{{- with .Values.sync.maxClustersPerReplica }}{{ $_ := set $sync "maxClustersPerReplica" (int .) }}{{ end }}
{{- if not (kindIs "invalid" .Values.sync.unpagedListMax) }}{{ $_ := set $sync "unpagedListMax" (int .Values.sync.unpagedListMax) }}{{ end }}
{{- with .Values.sync.listPageSize }}{{ $_ := set $sync "listPageSize" (int .) }}{{ end }}
{{- $config := dict "clusters" $clusters "server" $server "sync" $sync }}
{{- with .Values.authentication.clientCA.configMapName }}
{{- $_ := set $config "authentication" (dict "clientCAFile" (printf "/etc/mc/client-ca/%s" $.Values.authentication.clientCA.key)) }}
{{- end }}
{{- toYaml $config }}
{{- end }}

{{/* The admin token: the given one, else the one already in the release's Secret, else new. */}}
{{- define "kubectl-multicluster.token" -}}
{{- if .Values.token }}{{ .Values.token }}
{{- else }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (printf "%s-token" (include "kubectl-multicluster.fullname" .)) }}
{{- if and $existing $existing.data (index $existing.data "token") }}{{ index $existing.data "token" | b64dec }}
{{- else }}{{ randAlphaNum 48 }}
{{- end }}
{{- end }}
{{- end }}

{{/* A probe from the values, over HTTPS unless the chart serves plain http. */}}
{{- define "kubectl-multicluster.probe" -}}
{{- $probe := deepCopy .probe }}
{{- if and (not .root.Values.tls.plainHTTP) $probe.httpGet }}{{ $_ := set $probe.httpGet "scheme" "HTTPS" }}{{ end }}
{{- toYaml $probe }}
{{- end }}
