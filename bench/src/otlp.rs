//! The OTLP rows: tool spans ingested per second through OTLP/HTTP (protobuf, 512 spans per
//! export: the OpenTelemetry SDKs' default batch), beside `Publish` on one server in the same
//! run, twice: carrying the very events the exports map to (512 calls started and finished per
//! request, the same ids and results: the like-for-like baseline), and carrying as many output
//! chunks of one call (the cheapest events). Each span becomes two events (the call's start and
//! finish), the finish with `payload` bytes of result. Then the server's CPU per body byte for
//! an ordinary export and hostile ones.

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;

use toolview::grpc::pb::{self, session_service_client::SessionServiceClient, tool_event::Event};

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

/// What exporter `e`'s export number `n` maps to, as a harness would publish it: each span a
/// call started and finished, with the ids, arguments and result the OTLP mapping gives them.
/// The like-for-like baseline: the same events through `Publish`.
fn mapped(session: &str, n: u64, result: &str) -> Vec<pb::ToolEvent> {
    let event = |id: String, event: Event| pb::ToolEvent {
        session_id: session.to_owned(),
        event_id: id,
        event: Some(event),
    };
    (0..SPANS_PER_EXPORT as u64)
        .flat_map(|i| {
            let id = format!("{:016x}", n * SPANS_PER_EXPORT as u64 + i + 1);
            let call = format!("otel:{id}");
            let started = Event::CallStarted(pb::ToolCallStarted {
                parent_call_id: String::new(),
                input_streaming: false,
                call_id: call.clone(),
                tool_name: "bash".into(),
                arguments_json: r#"{"command":"make test"}"#.into(),
                view: None,
            });
            let finished = Event::CallFinished(pb::ToolCallFinished {
                call_id: call.clone(),
                content: vec![pb::ContentBlock {
                    block: Some(pb::content_block::Block::Text(pb::TextContent {
                        text: result.to_owned(),
                    })),
                }],
                is_error: false,
                meta_json: String::new(),
                view: None,
            });
            [
                event(format!("{call}:call"), started),
                event(format!("{call}:call:end"), finished),
            ]
        })
        .collect()
}

/// `n` publishers publishing what their exports map to, closed loop.
async fn mapped_load(
    server: &Server,
    n: usize,
    window: crate::load::Window,
    result: &str,
) -> anyhow::Result<crate::measure::Sampled> {
    let mut publishers = Vec::with_capacity(n);
    for e in 0..n {
        let client = SessionServiceClient::new(load::connect(&server.url).await?);
        publishers.push((client, format!("otlp-mapped/{n}-e{e}"), 0u64));
    }
    let result = result.to_owned();
    closed_loop(
        publishers,
        window,
        2 * SPANS_PER_EXPORT as u64,
        move |(mut c, session, k)| {
            let events = mapped(&session, k, &result);
            async move {
                let ok = c.publish(pb::PublishRequest { events }).await.is_ok();
                ((c, session, k + 1), ok)
            }
        },
    )
    .await
}

/// A hostile export: `attributes` empty resource attributes (two bytes each) over 400 tool spans.
fn flood(attributes: usize) -> Vec<u8> {
    let mut request = ExportTraceServiceRequest::decode(&export("otlp-flood", 0, 0, "ok")[..])
        .expect("our own export decodes");
    let resource = request.resource_spans[0]
        .resource
        .as_mut()
        .expect("a resource");
    resource.attributes = vec![KeyValue::default(); attributes];
    request.resource_spans[0].scope_spans[0].spans.truncate(400);
    request.encode_to_vec()
}

/// Server CPU per body byte: one ordinary export against hostile ones (issue 55): the server's
/// CPU time over 20 posts of each, divided by their bytes.
async fn cost_rows(server: &Server, uri: &hyper::Uri, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let bodies = [
        (
            "an ordinary export (512 tool spans)",
            export("otlp-cost", 9, 0, "ok"),
        ),
        ("200,000 empty attributes over 400 spans", flood(200_000)),
        (
            "2,000,000 empty attributes (refused: --otlp-max-entries)",
            flood(2_000_000),
        ),
    ];
    for (what, body) in bodies {
        progress(&format!("OTLP cost: {what}"));
        let before = server.cpu_time();
        for _ in 0..20 {
            let request = hyper::Request::post(uri.clone())
                .header("content-type", "application/x-protobuf")
                .body(Full::new(Bytes::from(body.clone())))?;
            client.request(request).await?.into_body().collect().await?;
        }
        let cpu = server.cpu_time() - before;
        let per_mb = cpu.as_secs_f64() * 1e3 / (20.0 * body.len() as f64 / 1e6);
        let mut row = Row::new(
            format!(
                "OTLP/HTTP server CPU per MB: {what}, {} KB",
                body.len() / 1000
            ),
            format!("{per_mb:.0} ms/MB"),
        );
        row.verdict = format!("{:.1} ms a request", cpu.as_secs_f64() * 1e3 / 20.0);
        rows.push(row);
    }
    Ok(())
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
        let (client, uri, text) = (client.clone(), uri.clone(), result.clone());
        let mut otlp = closed_loop(exporters, window, SPANS_PER_EXPORT as u64, move |(e, k)| {
            let (client, uri, result) = (client.clone(), uri.clone(), text.clone());
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
        progress(&format!(
            "the same events through Publish, {}",
            plural(n, "publisher")
        ));
        let mut like = mapped_load(&server, n, window, &result).await?;
        let spans_per_s = otlp.rate();
        let ratio = 2.0 * spans_per_s / publish.rate().max(1.0);
        let like_ratio = 2.0 * spans_per_s / like.rate().max(1.0);
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
            "{:.0}% of the same events through Publish; {:.0}% of output chunks{}",
            like_ratio * 100.0,
            ratio * 100.0,
            errors(&otlp)
        );
        rows.push(row);
        let mut row = Row::new(
            format!(
                "the same events through `Publish` (512 calls started and finished each), {}",
                plural(n, "publisher")
            ),
            format!("{} ev/s", thousands(like.rate())),
        );
        row.latency = Some(like.percentiles());
        row.verdict = errors(&like);
        rows.push(row);
        let mut row = Row::new(
            format!(
                "output chunks through `Publish` beside it ({events} per request), {}",
                plural(n, "publisher")
            ),
            format!("{} ev/s", thousands(publish.rate())),
        );
        row.latency = Some(publish.percentiles());
        row.verdict = errors(&publish);
        rows.push(row);
    }
    cost_rows(&server, &uri, rows).await
}
