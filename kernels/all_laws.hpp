// Every law the batch engine compiles for the device, as one list for the explicit
// instantiations of kernels/*.cu: IMPACT_FOR_EACH_LAW(X) expands to X(NewtonLaw) X(...) ...
// (host/laws.cpp registers the same laws with their names and columns).
#pragma once
#include "impact/laws/aghili.hpp"
#include "impact/laws/chatterjee_ruina.hpp"
#include "impact/laws/jia.hpp"
#include "impact/laws/morgan.hpp"
#include "impact/laws/newton.hpp"
#include "impact/laws/stronge.hpp"

#define IMPACT_FOR_EACH_LAW(X) X(NewtonLaw) X(ChatterjeeRuinaLaw) X(AghiliLaw) X(MorganLaw) X(StrongeLaw) X(JiaLaw)
