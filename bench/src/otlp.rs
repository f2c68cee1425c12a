//! The OTLP row: tool spans ingested per second through OTLP/HTTP (protobuf, 512 spans per
//! export: the OpenTelemetry SDKs' default batch), beside publishes through `Publish` carrying
//! the same number of events per request, on one server in the same run. Each span becomes two
//! events (the call's start and finish), each with `payload` bytes of result.

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;

use crate::config::BenchConfig;
use crate::load::{self, closed_loop, output_text};
use crate::process::Server;
use crate::table::{Row, errors, plural, progress, thousands};

/// Spans per export: the SDKs' default `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`.
const SPANS_PER_EXPORT: usize = 512;
/// Exporters at once.
const EXPORTERS: [usize; 2] = [1, 8];

fn kv(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    }
}

/// Exporter `e`'s export number `n` into `session`: fresh span ids, so nothing is a duplicate.
fn export(session: &str, e: usize, n: u64, result: &str) -> Vec<u8> {
    let spans = (0..SPANS_PER_EXPORT as u64)
        .map(|i| {
            let id = (n * SPANS_PER_EXPORT as u64 + i + 1).to_be_bytes().to_vec();
            Span {
                trace_id: [[e as u8; 8], (n + 1).to_be_bytes()].concat(),
                span_id: id,
                name: "execute_tool bash".into(),
                start_time_unix_nano: 1_700_000_000_000_000_000 + i,
                end_time_unix_nano: 1_700_000_000_000_000_001 + i,
                attributes: vec![
                    kv("gen_ai.operation.name", "execute_tool"),
                    kv("gen_ai.tool.name", "bash"),
                    kv("gen_ai.tool.call.arguments", r#"{"command":"make test"}"#),
                    kv("gen_ai.tool.call.result", result),
                ],
                ..Default::default()
            }
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![kv("toolview.session.id", session)],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

/// The rows: OTLP/HTTP spans per second and `Publish` events per second, per exporter count.
pub async fn rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let server = Server::toolview(&config.toolview, "memory")?;
    let window = config.window();
    let result = output_text(config.payload);
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let uri: hyper::Uri = format!("{}/v1/traces", server.url).parse()?;
    for n in EXPORTERS {
        progress(&format!("OTLP/HTTP ingest, {}", plural(n, "exporter")));
        let exporters: Vec<(usize, u64)> = (0..n).map(|e| (e, 0)).collect();
        let (client, uri, result) = (client.clone(), uri.clone(), result.clone());
        let mut otlp = closed_loop(exporters, window, SPANS_PER_EXPORT as u64, move |(e, k)| {
            let (client, uri, result) = (client.clone(), uri.clone(), result.clone());
            async move {
                let request = hyper::Request::post(uri)
                    .header("content-type", "application/x-protobuf")
                    .body(Full::new(Bytes::from(export(
                        &format!("otlp-bench/{n}-e{e}"),
                        e,
                        k,
                        &result,
                    ))))
                    .expect("a request");
                let ok = match client.request(request).await {
                    Ok(response) => {
                        let ok = response.status().is_success();
                        ok && response.into_body().collect().await.is_ok()
                    }
                    Err(_) => false,
                };
                ((e, k + 1), ok)
            }
        })
        .await?;
        progress(&format!("publish beside it, {}", plural(n, "publisher")));
        let events = 2 * SPANS_PER_EXPORT;
        let mut publish = load::publish_load(
            &server.url,
            &format!("otlp-beside-{n}"),
            n,
            events,
            window,
            config.payload,
        )
        .await?;
        let spans_per_s = otlp.rate();
        let ratio = 2.0 * spans_per_s / publish.rate().max(1.0);
        let mut row = Row::new(
            format!(
                "OTLP/HTTP ingest (protobuf, {SPANS_PER_EXPORT} tool spans per export), {}",
                plural(n, "exporter")
            ),
            format!(
                "{} spans/s ({} ev/s)",
                thousands(spans_per_s),
                thousands(2.0 * spans_per_s)
            ),
        );
        row.latency = Some(otlp.percentiles());
        row.verdict = format!(
            "{:.0}% of Publish's events/s{}",
            ratio * 100.0,
            errors(&otlp)
        );
        rows.push(row);
        let mut row = Row::new(
            format!(
                "publish beside it ({events} events per `Publish`), {}",
                plural(n, "publisher")
            ),
            format!("{} ev/s", thousands(publish.rate())),
        );
        row.latency = Some(publish.percentiles());
        row.verdict = errors(&publish);
        rows.push(row);
    }
    Ok(())
}
