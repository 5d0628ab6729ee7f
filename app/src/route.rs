//! Every page of the lab has a URL, so any view can be linked to and survives a reload.

use yew_router::Routable;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Routable)]
pub enum Route {
    #[at("/")]
    Overview,
    #[at("/verbs")]
    Verbs,
    #[at("/qp")]
    QpStateMachine,
    #[at("/roce")]
    RoceV2,
    #[at("/lossless")]
    LosslessEthernet,
    #[at("/dcqcn")]
    Dcqcn,
    #[at("/topology")]
    FabricTopology,
    #[at("/nccl")]
    NcclTransports,
    #[at("/gpudirect")]
    GpuDirectRdma,
    #[at("/sharp")]
    Sharp,
    #[at("/nccl-env")]
    NcclEnvironment,
    #[at("/troubleshooting")]
    Troubleshooting,
    #[at("/bandwidth")]
    BandwidthLatency,
    #[at("/live")]
    LiveProbe,
    #[at("/flows")]
    PacketFlows,
    #[not_found]
    #[at("/404")]
    NotFound,
}
