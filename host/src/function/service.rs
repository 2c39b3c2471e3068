//! The FunctionRunnerService (v1 and its v1beta1 alias): each call renders in a pooled,
//! sandboxed engine instance on a blocking thread, at most one per core at a time.

use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use tokio::sync::Semaphore;
use tonic::{Request, Response, Status};

use super::log::Log;
use super::proto::v1::{self, RunFunctionRequest, RunFunctionResponse};
use super::proto::v1beta1;
use super::step;
use crate::runtime::Pool;

/// Shared by every connection.
#[derive(Clone)]
pub(crate) struct Service {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    permits: Semaphore,
    log: Log,
}

impl Service {
    pub(crate) fn new(pool: Pool, parallel: usize, log: Log) -> Service {
        Service {
            inner: Arc::new(Inner {
                pool,
                permits: Semaphore::new(parallel),
                log,
            }),
        }
    }

    async fn run(&self, req: RunFunctionRequest) -> Result<RunFunctionResponse, Status> {
        // Waiting callers hold only their request; at most `parallel` renders hold an instance.
        let _permit = self
            .inner
            .permits
            .acquire()
            .await
            .map_err(|_| Status::unavailable("the server is shutting down"))?;
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || inner.run(&req))
            .await
            .map_err(|e| Status::internal(format!("the render thread failed: {e}")))
    }
}

impl Inner {
    fn run(&self, req: &RunFunctionRequest) -> RunFunctionResponse {
        let start = Instant::now();
        // Over the engine's entry limits: its own error, without writing the request out.
        let answer = match step::over_limits(req) {
            Some(refusal) => Ok(Ok(refusal.into_bytes())),
            None => step::engine_request(req).map(|request| self.pool.render(&request)),
        };
        let rsp = match answer {
            Err(message) => step::fatal(req, message),
            Ok(Err(e)) => step::fatal(req, e.to_string()),
            Ok(Ok(bytes)) => match step::answer(&bytes) {
                Ok(answer) => step::response(req, answer),
                Err(e) => step::fatal(req, format!("cannot read the engine's answer: {e}")),
            },
        };
        let fatal = rsp
            .results
            .iter()
            .find(|r| r.severity == v1::Severity::Fatal as i32);
        let tag = req.meta.as_ref().map(|m| m.tag.as_str()).unwrap_or("");
        let mut fields = vec![
            ("tag", json!(tag)),
            ("resources", json!(step::resource_count(req))),
            ("duration_ms", json!(start.elapsed().as_secs_f64() * 1000.0)),
            ("results", json!(rsp.results.len())),
        ];
        if let Some(f) = fatal {
            fields.push(("fatal", json!(f.message)));
        }
        self.log.debug("RunFunction", &fields);
        rsp
    }
}

#[tonic::async_trait]
impl v1::function_runner_service_server::FunctionRunnerService for Service {
    async fn run_function(
        &self,
        request: Request<RunFunctionRequest>,
    ) -> Result<Response<RunFunctionResponse>, Status> {
        self.run(request.into_inner()).await.map(Response::new)
    }
}

#[tonic::async_trait]
impl v1beta1::function_runner_service_server::FunctionRunnerService for Service {
    async fn run_function(
        &self,
        request: Request<RunFunctionRequest>,
    ) -> Result<Response<RunFunctionResponse>, Status> {
        self.run(request.into_inner()).await.map(Response::new)
    }
}
