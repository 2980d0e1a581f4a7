/**
 * Why a peer check has no rule (bench/coverage-table.ts): Checkov id → the reason docs/coverage.md
 * prints. A tfsec/Trivy or KICS check without a rule takes the reason of its Checkov equivalent
 * (bench/peer-checks/equivalents.tsv). Data only; the generator's logic stays in coverage-table.ts.
 */
/** Shared reasons of the Azure and Google Cloud entries below. */
const PLATFORM_KEY =
  'encrypted at rest by default with platform-managed keys: a customer-managed key is a compliance choice, judged by the model (TF-GCP-CMEK-MISSING); a removed key is TF-AZURE-CMK-REMOVED';
const AVAILABILITY = 'availability or capacity (SLA, zones, replicas, instance counts), not a security setting';
const LATEST_VERSION = 'the latest runtime or engine version changes every few months: a fixed list in a check would rot (judged by the model)';

export const NOT_COVERED: Readonly<Record<string, string>> = {
  CKV_AWS_19:
    'S3 encrypts every new object (SSE-S3) since January 2023: an absent configuration is not a finding; a removed or downgraded one is TF-AWS-S3-ENCRYPTION-WEAKENED',
  CKV_GCP_14: 'partial: TF-GEN-BACKUP-DISABLED names `google_sql_database_instance` but its check does not test it (judged by the model)',
  CKV_GCP_43: 'partial: TF-GEN-KEY-ROTATION-DISABLED names `google_kms_crypto_key` but its check does not test it (judged by the model)',
  CKV_AZURE_50:
    'contradicts CKV2_AZURE_10 (the antimalware agent is an extension): which extensions a VM may run is judged by the model, TF-AZURE-VM-ANTIMALWARE-MISSING covers the antimalware one',
  ...Object.fromEntries(
    [
      'CKV_AZURE_93',
      'CKV_AZURE_100',
      'CKV_AZURE_117',
      'CKV_AZURE_201',
      'CKV_AZURE_240',
      'CKV2_AZURE_1',
      'CKV2_AZURE_11',
      'CKV2_AZURE_15',
      'CKV2_AZURE_16',
      'CKV2_AZURE_17',
      'CKV2_AZURE_22',
      'CKV_GCP_37',
      'CKV_GCP_38',
      'CKV_GCP_80',
      'CKV_GCP_81',
      'CKV_GCP_83',
      'CKV_GCP_93',
      'CKV2_GCP_21',
    ].map((id) => [id, PLATFORM_KEY]),
  ),
  ...Object.fromEntries(
    [
      'CKV_AZURE_165',
      'CKV_AZURE_168',
      'CKV_AZURE_169',
      'CKV_AZURE_170',
      'CKV_AZURE_206',
      'CKV_AZURE_211',
      'CKV_AZURE_212',
      'CKV_AZURE_213',
      'CKV_AZURE_214',
      'CKV_AZURE_225',
      'CKV_AZURE_229',
      'CKV_AZURE_230',
      'CKV_AZURE_233',
    ].map((id) => [id, AVAILABILITY]),
  ),
  ...Object.fromEntries(['CKV_AZURE_80', 'CKV_AZURE_81', 'CKV_AZURE_82', 'CKV_AZURE_83', 'CKV_GCP_79'].map((id) => [id, LATEST_VERSION])),
  CKV_AZURE_18: 'HTTP/2 is a protocol feature, not a security control',
  CKV_AZURE_67: 'HTTP/2 is a protocol feature, not a security control',
  CKV_AZURE_43: 'naming hygiene: a storage account name exposes nothing',
  CKV_AZURE_88: 'a storage choice (Azure Files mounted into the app), not a security setting',
  CKV_AZURE_92:
    'never fails on these types: azurerm_linux/windows_virtual_machine have no storage_os_disk or vhd_uri (their disks are always managed); unmanaged disks of the legacy azurerm_virtual_machine are TF-AZURE-VM-UNMANAGED-DISKS (CKV2_AZURE_9)',
  CKV_GCP_21: 'labelling hygiene: cluster labels are not a security setting',
  CKV_GCP_22: 'applies only to GKE versions before 1.24 (Checkov reports nothing from 1.24 on), which are out of support',
  ...Object.fromEntries(
    ['CKV_AZURE_96', 'CKV_AZURE_130', 'CKV_AZURE_199', 'CKV_AZURE_75'].map((id) => [
      id,
      'infrastructure (double) encryption adds a second platform-managed layer under the default encryption at rest: a compliance choice, judged by the model',
    ]),
  ),
  CKV_AZURE_2:
    'managed disks are always encrypted at rest (server-side encryption); Checkov fails only an explicit encryption_settings { enabled = false } of Azure Disk Encryption, a guest-level option',
  CKV_AZURE_20: 'a phone number on the security contact is contact hygiene, not a security setting',
  CKV_AZURE_114: 'content_type is a label describing the secret, not a security setting',
  CKV_GCP_24: 'PodSecurityPolicy was removed in Kubernetes 1.25 and from GKE; pod security is enforced by Pod Security Admission in the cluster',
  ...Object.fromEntries(
    ['CKV2_AZURE_32', 'CKV2_AZURE_33', 'CKV2_AZURE_42', 'CKV2_AZURE_43', 'CKV2_AZURE_44', 'CKV2_AZURE_45', 'CKV2_AZURE_56', 'CKV2_AZURE_57'].map((id) => [
      id,
      'cross-resource: needs the azurerm_private_endpoint that targets the resource, which the plan context does not link; the public exposure itself is TF-AZURE-PUBLIC-NETWORK-ACCESS, TF-AZURE-NETWORK-DEFAULT-ALLOW or TF-AZURE-DB-PUBLIC',
    ]),
  ),
  ...Object.fromEntries(
    ['CKV_AZURE_23', 'CKV_AZURE_24', 'CKV2_AZURE_2', 'CKV2_AZURE_3', 'CKV2_AZURE_4', 'CKV2_AZURE_5', 'CKV2_AZURE_13'].map((id) => [
      id,
      'cross-resource: auditing and vulnerability assessment of a SQL server are separate resources (extended auditing policy, vulnerability assessment) linked to the server; a removed or disabled auditing policy is TF-AZURE-DIAGNOSTIC-LOGGING-OFF',
    ]),
  ),
  ...Object.fromEntries(['CKV_AZURE_180', 'CKV_AZURE_188', 'CKV_AZURE_208', 'CKV_AZURE_209', 'CKV_AZURE_232'].map((id) => [id, AVAILABILITY])),
  CKV_AZURE_186: PLATFORM_KEY,
  CKV_AZURE_163:
    'Checkov tests only that the registry SKU is not Basic; image scanning is Microsoft Defender for Containers, a subscription plan (TF-AZURE-DEFENDER-PLAN-FREE)',
  CKV_AZURE_167: 'cleanup of untagged manifests is storage hygiene, not a security setting',
  CKV_AZURE_226: 'ephemeral OS disks are a performance and cost choice, not a security setting',
  CKV2_AZURE_29: 'the network plugin is a design choice; what matters for isolation, an enforced network policy, is TF-AZURE-AKS-NETWORK-POLICY-MISSING',
  CKV_AZURE_103: 'Git integration is a development workflow choice for the Data Factory authoring UI, not a security setting',
  CKV_GCP_65: 'an identity-management choice (Google Groups for RBAC); who holds cluster roles is judged by the model',
  CKV_GCP_123: 'configuration hygiene (node pools defined inline rather than as separate resources), not a security setting',
  CKV_GCP_82: 'lifecycle { prevent_destroy } is a Terraform meta-argument: neither planned values nor parsed .tf values carry it',
  CKV_AWS_260:
    "opinion: port 80 open to the internet is a public web server's purpose (often only to redirect to HTTPS); plain HTTP served to clients is TF-AWS-LB-HTTP-LISTENER",
  CKV_AWS_339: 'the supported EKS versions change every few months: a fixed list in a check would rot (judged by the model)',
  CKV_AWS_120: 'performance, not security: response caching is a cost and latency choice; an unencrypted cache is TF-AWS-APIGW-CACHE-UNENCRYPTED',
  CKV_AWS_225: 'performance, not security: response caching is a cost and latency choice; an unencrypted cache is TF-AWS-APIGW-CACHE-UNENCRYPTED',
  CKV_AWS_216: 'a disabled distribution serves nothing: not an exposure',
  CKV_AWS_310: 'availability design (origin failover groups), not a setting whose absence exposes anything',
  CKV_AWS_374: 'geographic restriction is a business choice, not a security setting',
  CKV2_AWS_42: 'opinion: the default *.cloudfront.net certificate gives the same TLS; the minimum protocol version is TF-AWS-TLS-POLICY-OUTDATED',
  CKV_AWS_252: 'operational: an SNS notification of log-file delivery adds no protection to the trail',
  CKV_AWS_154: 'EC2-Classic was retired in 2022: every Redshift cluster runs in a VPC',
  CKV_AWS_320: 'a database name is not a secret: the default name "dev" gives an attacker nothing',
  CKV_AWS_233: 'create_before_destroy is a lifecycle meta-argument, absent from planned values, and an availability choice',
  CKV_AWS_153: 'hygiene: tag propagation is not a security setting',
  CKV_AWS_261: "availability hygiene: a target group always has a health check (the provider's default one)",
  CKV2_AWS_16: 'cross-resource (an aws_appautoscaling_target for the table), and on-demand tables scale without it',
  CKV2_AWS_19: "cross-resource (the EIP's instance) and hygiene: an unattached Elastic IP exposes nothing",
  CKV2_AWS_1: 'cross-resource: a network ACL attached to no subnet filters nothing and exposes nothing',
  CKV2_AWS_14: 'cross-resource group membership (aws_iam_group_membership) and hygiene',
  CKV2_AWS_21: 'cross-resource group membership (aws_iam_group_membership) and hygiene',
  CKV2_AWS_22: "cross-resource: console access is the user's separate aws_iam_user_login_profile (judged by the model)",
  CKV_AWS_289:
    'needs the IAM service authorisation reference (the access level and resource types of every action), which the checks do not carry; privilege-escalation, credential and data-read actions on every resource are TF-AWS-IAM-PRIVESC-ACTIONS, TF-AWS-IAM-CREDENTIAL-ACTIONS and TF-AWS-IAM-DATA-READ-ACTIONS',
  CKV_AWS_290:
    'needs the IAM service authorisation reference (the access level and resource types of every action), which the checks do not carry; privilege-escalation, credential and data-read actions on every resource are TF-AWS-IAM-PRIVESC-ACTIONS, TF-AWS-IAM-CREDENTIAL-ACTIONS and TF-AWS-IAM-DATA-READ-ACTIONS',
  CKV_AWS_355:
    'needs the IAM service authorisation reference (the access level and resource types of every action), which the checks do not carry; privilege-escalation, credential and data-read actions on every resource are TF-AWS-IAM-PRIVESC-ACTIONS, TF-AWS-IAM-CREDENTIAL-ACTIONS and TF-AWS-IAM-DATA-READ-ACTIONS',
  CKV_AWS_248: "cross-resource: needs the id of the VPC's default security group",
  CKV2_AWS_28: 'cross-resource: the WAF is attached by a separate aws_wafv2_web_acl_association (judged by the model)',
  CKV2_AWS_29: 'cross-resource: the WAF is attached by a separate aws_wafv2_web_acl_association (judged by the model)',
  CKV2_AWS_33: 'cross-resource: the WAF is attached by a separate aws_wafv2_web_acl_association (judged by the model)',
  CKV2_AWS_8: 'cross-resource: membership of an AWS Backup plan is a separate aws_backup_selection (judged by the model)',
  CKV2_AWS_9: 'cross-resource: membership of an AWS Backup plan is a separate aws_backup_selection (judged by the model)',
  CKV2_AWS_18: 'cross-resource: membership of an AWS Backup plan is a separate aws_backup_selection (judged by the model)',
  CKV2_AWS_2: 'cross-resource (the volume attachment); an unencrypted volume is TF-AWS-EBS-ENCRYPTION-OFF whatever it is attached to',
  CKV2_AWS_27: 'cross-resource: query logging is a parameter of the parameter group the cluster names (judged by the model)',
  CKV2_AWS_30: 'cross-resource: query logging is a parameter of the parameter group the instance names (judged by the model)',
  CKV2_AWS_7: "cross-resource: needs the EMR cluster's security groups; open ingress itself is TF-AWS-SG-ADMIN-PORTS-OPEN and TF-AWS-SG-ALL-PORTS-OPEN",
  CKV2_AWS_46: "cross-resource: needs the distribution's S3 origin and the origin access control resource (judged by the model)",
  CKV_AWS_93: 'needs reasoning over every Deny statement and NotPrincipal of the policy together (judged by the model)',
  CKV_AWS_379: 'the fact is a bucket policy denying aws:SecureTransport = false, a separate aws_s3_bucket_policy (judged by the model)',
  CKV2_AWS_36: 'cross-resource: an http data source sending the parameter elsewhere (judged by the model)',
  CKV2_AWS_31: 'cross-resource: WAF logging is a separate aws_wafv2_web_acl_logging_configuration',
  CKV2_AWS_63: 'cross-resource: firewall logging is a separate aws_networkfirewall_logging_configuration',
  CKV2_AWS_47:
    'cross-resource: the web ACL attached to the distribution, load balancer, API or AppSync API, and which managed rule groups it runs, are judged by the model (an ACL without rules is TF-AWS-WAF-ACL-EMPTY)',
  CKV2_AWS_76:
    'cross-resource: the web ACL attached to the distribution, load balancer, API or AppSync API, and which managed rule groups it runs, are judged by the model (an ACL without rules is TF-AWS-WAF-ACL-EMPTY)',
  CKV2_AWS_77:
    'cross-resource: the web ACL attached to the distribution, load balancer, API or AppSync API, and which managed rule groups it runs, are judged by the model (an ACL without rules is TF-AWS-WAF-ACL-EMPTY)',
  CKV2_AWS_78:
    'cross-resource: the web ACL attached to the distribution, load balancer, API or AppSync API, and which managed rule groups it runs, are judged by the model (an ACL without rules is TF-AWS-WAF-ACL-EMPTY)',
  CKV_AWS_192: 'which managed rule groups a web ACL runs is a design choice judged by the model (an ACL without rules is TF-AWS-WAF-ACL-EMPTY)',
  CKV_AWS_208: 'a list of the current versions or policies in a check rots as AWS releases new ones (judged by the model)',
  CKV_AWS_380: 'a list of the current versions or policies in a check rots as AWS releases new ones (judged by the model)',
  CKV_AWS_250:
    'a list of vulnerable engine versions from AWS security bulletins, which a fixed check would have to track release by release (judged by the model)',
  CKV_AWS_388:
    'a list of vulnerable engine versions from AWS security bulletins, which a fixed check would have to track release by release (judged by the model)',
  CKV2_AWS_68: "cross-resource: the notebook's role and the policies attached to it (judged by the model)",
  CKV_AWS_385: "needs the account's own id to tell a cross-account principal from a local one (judged by the model)",
  CKV2_AWS_5: 'hygiene: a security group attached to nothing exposes nothing',
  CKV2_AWS_23: 'hygiene: a dangling DNS record is a takeover risk of the zone, not a setting of this resource (no rule yet for aws_route53_record)',
};
