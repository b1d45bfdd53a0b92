import * as family from '../../../lib/core/actions/cloud'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['aws s3 cp site/ s3://bucket/ --recursive', 'remote_copy'],
    ['aws ec2 terminate-instances --instance-ids i-1', 'infra_destroy'],
    ['aws --profile prod s3 rm s3://bucket --recursive', 'infra_destroy'],
    ['aws --region eu-west-1 s3 cp site/ s3://bucket/', 'remote_copy'],
    ['aws s3 rb s3://bucket --force', 'infra_destroy'],
    ['aws ses send-email --from a@b.c', 'email_send'],
    ['aws lambda update-function-code --function-name f', 'deploy'],
    ['gcloud compute instances delete vm-1', 'infra_destroy'],
    ['gcloud run deploy api --source .', 'deploy'],
    ['az group delete -n rg', 'infra_destroy'],
    ['doctl compute droplet delete 123', 'infra_destroy'],
    ['gsutil cp dist/app.js gs://bucket/', 'remote_copy'],
    ['gsutil rm gs://bucket/x', 'infra_destroy'],
  ],
  invalid: ['aws s3 ls', 'aws --profile prod s3 ls', 'aws ec2 terminate-instances --instance-ids i-1 --dry-run', 'aws s3 cp s3://bucket/x .', 'aws ec2 describe-instances', 'gcloud config list', 'az account show', 'doctl compute droplet list', 'gsutil ls gs://bucket'],
})
